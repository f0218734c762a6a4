package scripts

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// releaseDate is the commit date of the tree the release test builds.
const releaseDate = "2026-11-30T08:00:00Z"

// TestReleaseSnapshot builds this tree's release as make release does, with the
// GoReleaser the Makefile pins, but for linux/amd64 alone (the other platforms
// build the same way, and would double make test's time), and checks what a
// person installs: the archive holds the three programs, the README, the manual
// pages and the shells' completions, its
// strom prints the version, commit and date, the .deb holds the three in
// /usr/bin and depends on git, the formula and checksums.txt name the right sums.
// A tree with the tag v1.2.3 builds once more, without publishing: that strom is
// 1.2.3.
func TestReleaseSnapshot(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"git", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the release test needs %s: install it (apt-get install git dpkg; .ci/run does)", tool)
		}
	}
	goreleaser := pinnedGoReleaser(t)
	src := releaseTree(t)
	commit := strings.TrimSpace(gitOut(t, src, "rev-parse", "--short=7", "HEAD"))

	run(t, src, append(goreleaser, "release", "--snapshot", "--clean")...)
	dist := filepath.Join(src, "dist")
	const dev = "0.0.0-dev"
	archive := filepath.Join(dist, "strom_"+dev+"_linux_amd64.tar.gz")
	unpacked := untar(t, archive)
	for _, name := range []string{"strom", "strom-app", "strom-menu", "README.md", "man/strom.1", "man/strom-run.1", "completions/strom.bash", "completions/_strom", "completions/strom.fish", "completions/strom.ps1"} {
		if _, ok := unpacked[name]; !ok {
			t.Errorf("%s lacks %s; it has %v", filepath.Base(archive), name, keys(unpacked))
		}
	}
	for _, name := range []string{"strom", "strom-app", "strom-menu"} {
		checkStatic(t, unpacked[name])
	}
	want := "strom " + dev + " (" + commit + ", 2026-11-30)\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if got := run(t, src, append([]string{unpacked["strom"]}, args...)...); got != want {
			t.Errorf("the archive's strom %s printed %q, want %q", args[0], got, want)
		}
	}

	deb := filepath.Join(dist, "strom_0.0.0~dev_amd64.deb")
	fields := run(t, src, "dpkg-deb", "--field", deb, "Package", "Version", "Architecture", "Depends")
	for _, field := range []string{"Package: strom", "Version: 0.0.0~dev", "Architecture: amd64", "Depends: git"} {
		if !strings.Contains(fields, field+"\n") {
			t.Errorf("%s's control lacks %q:\n%s", filepath.Base(deb), field, fields)
		}
	}
	contents := run(t, src, "dpkg-deb", "--contents", deb)
	for _, name := range []string{"strom", "strom-app", "strom-menu"} {
		if !regexp.MustCompile(`(?m)^-rwxr-xr-x root/root .* \./usr/bin/` + name + `$`).MatchString(contents) {
			t.Errorf("%s does not install /usr/bin/%s as an executable of root's:\n%s", filepath.Base(deb), name, contents)
		}
	}
	for _, path := range []string{"usr/share/man/man1/strom.1", "usr/share/man/man1/strom-run.1", "usr/share/bash-completion/completions/strom",
		"usr/share/zsh/vendor-completions/_strom", "usr/share/fish/vendor_completions.d/strom.fish"} {
		if !regexp.MustCompile(`(?m)^-rw-r--r-- root/root .* \./` + regexp.QuoteMeta(path) + `$`).MatchString(contents) {
			t.Errorf("%s does not install /%s:\n%s", filepath.Base(deb), path, contents)
		}
	}
	root := t.TempDir()
	run(t, src, "dpkg-deb", "--extract", deb, root)
	if got := run(t, src, filepath.Join(root, "usr/bin/strom"), "--version"); got != want {
		t.Errorf("the .deb's strom --version printed %q, want %q", got, want)
	}

	sums := checksums(t, filepath.Join(dist, "checksums.txt"))
	for _, file := range []string{archive, deb} {
		if got, want := sums[filepath.Base(file)], sha256File(t, file); got != want {
			t.Errorf("checksums.txt gives %s the sum %q, want %q", filepath.Base(file), got, want)
		}
	}
	formula, err := os.ReadFile(filepath.Join(dist, "homebrew/Formula/strom.rb"))
	if err != nil {
		t.Fatalf("read the Homebrew formula: %v", err)
	}
	for _, line := range []string{
		`version "` + dev + `"`,
		`/strom_` + dev + `_linux_amd64.tar.gz"`,
		`sha256 "` + sums[filepath.Base(archive)] + `"`,
		`bin.install "strom", "strom-app", "strom-menu"`,
		`man1.install Dir["man/*.1"]`,
		`bash_completion.install "completions/strom.bash" => "strom"`,
		`depends_on "git"`,
	} {
		if !strings.Contains(string(formula), line) {
			t.Errorf("the formula lacks %s:\n%s", line, formula)
		}
	}

	// A release: the tag is the version, and nothing is published.
	run(t, src, "git", "tag", "v1.2.3")
	run(t, src, append(goreleaser, "release", "--clean", "--skip=publish,announce,validate")...)
	unpacked = untar(t, filepath.Join(dist, "strom_1.2.3_linux_amd64.tar.gz"))
	want = "strom 1.2.3 (" + commit + ", 2026-11-30)\n"
	if got := run(t, src, unpacked["strom"], "version"); got != want {
		t.Errorf("the release's strom version printed %q, want %q", got, want)
	}
	if got := run(t, src, "dpkg-deb", "--field", filepath.Join(dist, "strom_1.2.3_amd64.deb"), "Version"); got != "1.2.3\n" {
		t.Errorf("the release's .deb is version %q, want 1.2.3", got)
	}
}

// pinnedGoReleaser is the command make release runs GoReleaser with: the
// Makefile's GORELEASER, the module at the version it pins.
func pinnedGoReleaser(t *testing.T) []string {
	t.Helper()
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatalf("read the Makefile: %v", err)
	}
	m := regexp.MustCompile(`(?m)^GORELEASER \?= \$\(GO\) run (github\.com/goreleaser/goreleaser/v2@v[0-9.]+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile pins no GoReleaser: GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@vX.Y.Z")
	}
	return []string{"go", "run", string(m[1])}
}

// releaseTree is a clone of this tree's files as they are now, tracked or new,
// committed at releaseDate, its release config narrowed to linux/amd64.
func releaseTree(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "strom")
	files := gitOut(t, "..", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimSuffix(files, "\x00"), "\x00") {
		from := filepath.Join("..", name)
		fi, err := os.Lstat(from)
		if os.IsNotExist(err) {
			continue // removed, not yet committed
		}
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("copy %s: not a regular file (%v)", name, err)
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if name == ".goreleaser.yaml" {
			data = narrow(t, data)
		}
		to := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	run(t, src, "git", "init", "-q", "-b", "main")
	run(t, src, "git", "add", "-A")
	run(t, src, "git", "-c", "user.name=strom", "-c", "user.email=strom@example.org", "commit", "-q", "--no-verify", "-m", "release test")
	// A clone's remote, which GoReleaser reads the commit with; nothing is fetched
	// from it or pushed.
	run(t, src, "git", "remote", "add", "origin", "https://github.com/strom-research/strom.git")
	return src
}

// narrow makes the release config build for linux/amd64 alone.
func narrow(t *testing.T, config []byte) []byte {
	t.Helper()
	s := string(config)
	for from, to := range map[string]string{"goos: [linux, darwin]": "goos: [linux]", "goarch: [amd64, arm64]": "goarch: [amd64]"} {
		if strings.Count(s, from) != 1 {
			t.Fatalf(".goreleaser.yaml has not one %q: narrow it for the release test in another way", from)
		}
		s = strings.Replace(s, from, to, 1)
	}
	return []byte(s)
}

// run runs the command in dir and returns its standard output; one that fails
// fails the test with what it said.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE="+releaseDate, "GIT_COMMITTER_DATE="+releaseDate)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return run(t, dir, append([]string{"git"}, args...)...)
}

// untar unpacks the archive beside it and returns the path of each file by name.
func untar(t *testing.T, archive string) map[string]string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatalf("open the archive: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("read %s: %v", archive, err)
	}
	dir := t.TempDir()
	files := map[string]string{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("read %s: %v", archive, err)
		}
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(h.Name) || strings.Count(h.Name, "/") > 1 {
			t.Fatalf("%s holds %s, which is not a file at its top or in a folder of its top", filepath.Base(archive), h.Name)
		}
		path := filepath.Join(dir, h.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode).Perm())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		files[h.Name] = path
	}
}

// checkStatic fails the test when the program asks for a dynamic loader.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Errorf("read %s: %v", filepath.Base(path), err)
		return
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is linked dynamically: the release builds with CGO_ENABLED=0", filepath.Base(path))
		}
	}
}

// checksums reads checksums.txt: "SHA256  NAME" a line.
func checksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open checksums.txt: %v", err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt has the line %q, not \"SHA256  NAME\"", sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
