package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strom-research/strom/internal/fakemodel"
)

// The real Codex, OpenCode and Grok CLI clients under strom, end to end, against
// the scripted model server (issue 14), installed by npm and pinned as Claude Code
// is (claudee2e_test.go): their screens and texts change between versions.

// npmClient is one agent CLI that npm installs into the test cache.
type npmClient struct {
	name    string // the cache folder's prefix: codex, opencode, grok-cli
	pkg     string // the npm package
	version string
	bin     string // the program in node_modules/.bin

	once sync.Once
	path string
	why  string // why the client is not there
}

var (
	codexClient    = &npmClient{name: "codex", pkg: "@openai/codex", version: "0.171.0", bin: "codex"}
	opencodeClient = &npmClient{name: "opencode", pkg: "opencode-ai", version: "1.18.33", bin: "opencode"}
	grokClient     = &npmClient{name: "grok-cli", pkg: "@vibe-kit/grok-cli", version: "0.0.34", bin: "grok"}
)

// cacheDir is where the client is installed, reused between runs: .cache/ at the
// module's root (git-ignored), else the user's cache folder.
func (c *npmClient) cacheDir() string {
	folder := c.name + "-" + c.version
	if wd, err := os.Getwd(); err == nil {
		root := filepath.Join(wd, "..", "..")
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return filepath.Join(root, ".cache", folder)
		}
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "strom", folder)
}

// installed returns the version npm installed, "" for none.
func (c *npmClient) installed(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", c.pkg, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", c.bin)); err != nil {
		return ""
	}
	return pkg.Version
}

// install installs the pinned client once per cache folder; a lock file keeps
// two test processes from installing at the same time.
func (c *npmClient) install() (string, string) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Sprintf("npm is not installed (Debian: apt-get install nodejs npm), so the real %s client cannot be installed", c.pkg)
	}
	dir := c.cacheDir()
	bin := filepath.Join(dir, "node_modules", ".bin", c.bin)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Sprintf("make the client's cache folder: %v", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Sprintf("lock the client's cache folder: %v", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", fmt.Sprintf("lock the client's cache folder: %v", err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	if c.installed(dir) == c.version {
		return bin, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", dir, c.pkg+"@"+c.version)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Sprintf("npm install %s@%s: %v\n%s", c.pkg, c.version, err, out)
	}
	if v := c.installed(dir); v != c.version {
		return "", fmt.Sprintf("npm installed %s %q, not %s", c.pkg, v, c.version)
	}
	return bin, ""
}

// need returns the client's path, or ends the test: a skip that says why where
// npm is missing, a failure on CI (CI=true).
func (c *npmClient) need(t *testing.T) string {
	t.Helper()
	c.once.Do(func() { c.path, c.why = c.install() })
	if c.why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the real %s client is needed on CI: %s", c.pkg, c.why)
		}
		t.Skipf("not run: %s", c.why)
	}
	return c.path
}

// clientSetup says how a test's client starts.
type clientSetup struct {
	agent string // the strom agent: codex, codex-exec, opencode, grok
	turns []fakemodel.Turn
	// noLogin: no API key anywhere (the not-logged-in cases).
	noLogin bool
	// untrusted: Codex has not been told to trust the repo.
	untrusted bool
	// noConfig: Codex has no config.toml (its own OpenAI provider and login).
	noConfig bool
	// codexConfig, when set, is Codex's config.toml instead.
	codexConfig string
	// env is added to the client's environment.
	env []string
}

// clientEnvPrefixes are the variables of the person's own clients and models,
// which the tests never pass on.
var clientEnvPrefixes = []string{"ANTHROPIC_", "CLAUDE_", "STROM_", "OPENAI_", "CODEX_", "OPENCODE_", "GROK_", "XAI_", "MOCK_"}

// newClientRepo makes a research repo whose agent is one of the real clients, a
// HOME for it configured for the model server, and the server playing the turns.
func newClientRepo(t *testing.T, cs clientSetup) *claudeRepo {
	t.Helper()
	var client *npmClient
	switch cs.agent {
	case "codex", "codex-exec":
		client = codexClient
	case "opencode":
		client = opencodeClient
	case "grok":
		client = grokClient
	default:
		t.Fatalf("unknown client %q", cs.agent)
	}
	bin := client.need(t)
	claudeRuns <- struct{}{}
	t.Cleanup(func() { <-claudeRuns })
	h := newCLIHarness(t)
	h.stromAsItself(t)
	repo, err := filepath.EvalSymlinks(h.repo)
	if err != nil {
		t.Fatal(err)
	}
	h.repo = repo
	home := filepath.Join(h.dir, "home")
	srv, err := fakemodel.Start(cs.turns, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	var env []string
	for _, kv := range h.env {
		k, _, _ := strings.Cut(kv, "=")
		keep := k != "IS_SANDBOX"
		for _, p := range clientEnvPrefixes {
			keep = keep && !strings.HasPrefix(k, p)
		}
		if keep {
			env = append(env, kv)
		}
	}
	env = append(env,
		"PATH="+filepath.Dir(h.strom)+string(os.PathListSeparator)+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TZ=UTC",
	)
	if !cs.noLogin {
		env = append(env, "MOCK_API_KEY=sk-test")
	}
	switch client {
	case codexClient:
		// Codex treats a CODEX_HOME under the temporary folder apart (it sets up
		// no helper binaries there), so the test's home is beside the client, as
		// a person's is outside /tmp.
		home = codexTestHome(t, client)
		env = append(env, "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
		if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case cs.codexConfig != "":
			if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(cs.codexConfig), 0o644); err != nil {
				t.Fatal(err)
			}
		case !cs.noConfig:
			writeCodexConfig(t, filepath.Join(home, ".codex"), srv.URL, repo, cs)
		}
	case opencodeClient:
		env = append(env, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			// OpenCode installs its plugins with npm at start-up; the tests need none.
			"npm_config_registry=http://127.0.0.1:9/", "npm_config_offline=true")
		writeOpenCodeConfig(t, filepath.Join(home, ".config", "opencode"), srv.URL)
	case grokClient:
		env = append(env, "GROK_BASE_URL="+srv.URL+"/v1", "GROK_MODEL=grok-code-fast-1")
		if !cs.noLogin {
			env = append(env, "GROK_API_KEY=sk-test")
		}
	}
	h.env = append(env, cs.env...)
	h.must(t, "init", "--agent", strings.TrimSuffix(cs.agent, "-exec"))
	c := &claudeRepo{cliHarness: h, srv: srv, home: home}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the model server's requests:\n%s", c.requestLog())
		}
	})
	return c
}

// codexTestHome makes a HOME for one test under the client's cache folder, removed
// after the test.
func codexTestHome(t *testing.T, client *npmClient) string {
	t.Helper()
	parent := filepath.Join(client.cacheDir(), "homes")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp(parent, "home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}

// writeCodexConfig points Codex at the model server with a provider of its own
// (Codex 0.171.0 ignores OPENAI_BASE_URL), as a person points it at theirs.
func writeCodexConfig(t *testing.T, dir, url, repo string, cs clientSetup) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "model = %q\nmodel_provider = \"mock\"\ncheck_for_update_on_startup = false\n", "gpt-5-codex")
	fmt.Fprintf(&b, "\n[model_providers.mock]\nname = \"Mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n", url+"/v1")
	// A 429 is tried again once, after its retry-after (Codex retries it as a
	// stream error).
	b.WriteString("request_max_retries = 1\nstream_max_retries = 1\n")
	if !cs.untrusted {
		fmt.Fprintf(&b, "\n[projects.%q]\ntrust_level = \"trusted\"\n", repo)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeOpenCodeConfig points OpenCode at the model server with a provider of its
// own (Chat Completions).
func writeOpenCodeConfig(t *testing.T, dir, url string) {
	t.Helper()
	writeJSONFile(t, filepath.Join(dir, "opencode.json"), map[string]any{
		"autoupdate": false, "share": "disabled",
		"model": "mock/mock-model", "small_model": "mock/mock-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "{env:MOCK_API_KEY}"},
			"models": map[string]any{"mock-model": map[string]any{
				"name": "Mock Model", "tool_call": true, "limit": map[string]any{"context": 128000, "output": 8192}}},
		}},
	})
}

// processesOf lists the running processes whose environment holds marker (a
// test's own HOME): what a session left behind.
func processesOf(marker string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		env, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil || !strings.Contains(string(env), "\x00"+marker+"\x00") && !strings.HasPrefix(string(env), marker+"\x00") {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		out = append(out, filepath.Base(p)+" "+strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "))
	}
	return out
}

// finishWhen runs strom run and, once the model server has seen ready (a request
// whose user text or body holds it), asks the session to finish as a person does
// with strom session finish. It returns the run's exit status and screen.
func (c *claudeRepo) finishWhen(t *testing.T, within time.Duration, ready string, args ...string) (int, string) {
	t.Helper()
	stop := make(chan struct{})
	asked := make(chan string, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			for _, r := range c.srv.Requests() {
				if strings.Contains(string(r.Body), ready) {
					cmd := exec.Command(c.strom, "session", "finish")
					cmd.Dir, cmd.Env = c.repo, c.env
					out, _ := cmd.CombinedOutput()
					asked <- string(out)
					return
				}
			}
		}
	}()
	code, screen := c.run(t, within, args...)
	close(stop)
	select {
	case out := <-asked:
		t.Logf("strom session finish: %s", strings.TrimSpace(out))
	default:
		t.Errorf("the model server never saw %q: no finish was asked", ready)
	}
	return code, screen
}

// TestProcessesOf: the check for processes a session left behind finds one.
func TestProcessesOf(t *testing.T) {
	t.Parallel()
	marker := "STROM_TEST_MARKER=" + t.Name()
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if got := processesOf(marker); len(got) != 1 || !strings.Contains(got[0], "sleep 30") {
		t.Errorf("processesOf = %q, want the sleep", got)
	}
}
