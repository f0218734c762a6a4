package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testDate is the fixed author and committer date of every test commit.
const testDate = "1795000000 +0100"

func TestMain(m *testing.M) {
	// Every git the tests start, directly or through the package, sees only the
	// test repository's own configuration and fixed dates.
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL":   "/dev/null",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_DATE":     testDate,
		"GIT_COMMITTER_DATE":  testDate,
		"GIT_CONFIG_COUNT":    "1",
		"GIT_CONFIG_KEY_0":    "init.defaultBranch",
		"GIT_CONFIG_VALUE_0":  "main",
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
		"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
	} {
		os.Unsetenv(k)
	}
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}

// gitIn runs the real git CLI in dir and returns its trimmed stdout.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitEnvIn(dir, nil, "", args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// gitEnvIn runs git with extra environment and stdin; the error carries stderr.
func gitEnvIn(dir string, env []string, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(context.Background(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s%s", err, stderr.String(), stdout.String())
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// newRepo makes an empty repository with a user identity in its own config.
func newRepo(t testing.TB) *Repo {
	t.Helper()
	r, err := Init(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, r.Root, "config", "user.name", "Test Person")
	gitIn(t, r.Root, "config", "user.email", "test@example.org")
	return r
}

// newRepoArgs is newRepo made by `git init` with extra arguments.
func newRepoArgs(t testing.TB, args ...string) *Repo {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, append([]string{"init", "-q"}, args...)...)
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, r.Root, "config", "user.name", "Test Person")
	gitIn(t, r.Root, "config", "user.email", "test@example.org")
	return r
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

// commitAll commits the whole work tree with the CLI, as a person would.
func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", msg)
	return gitIn(t, dir, "rev-parse", "HEAD")
}

func sessionMessage(body string) Message {
	return Message{
		Subject: "strom: T-12 Find the baptism of Anna Novak — time limit",
		Body:    body,
		Trailers: []Trailer{
			{"Strom-Session", "20261130T091204Z-4f2a"},
			{"Strom-Task", "T-12"},
			{"Strom-End", "time-limit"},
			{"Strom-Agent", "claude"},
		},
	}
}

// parsedTrailers is what `git interpret-trailers --parse` reads from msg.
func parsedTrailers(t testing.TB, msg string, extra ...string) []Trailer {
	t.Helper()
	args := append([]string{"interpret-trailers", "--parse"}, extra...)
	out, err := gitEnvIn(t.TempDir(), nil, msg, args...)
	if err != nil {
		t.Fatalf("git interpret-trailers: %v", err)
	}
	var tr []Trailer
	for _, l := range splitLines(out) {
		k, v, _ := strings.Cut(l, ": ")
		tr = append(tr, Trailer{k, v})
	}
	return tr
}

func ctxT(t testing.TB) context.Context { return t.Context() }
