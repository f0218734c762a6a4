package statefiles

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestArchiveNames(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"ddb", "matricula", "a", "parish-2", "0x"} {
		if err := CheckArchiveName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "DDB", "-x", "a_b", "a.b", "a b", "ü", "12345678901234567890123456789012345678901"} {
		if err := CheckArchiveName(bad); !errors.Is(err, ErrArchiveName) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if k, err := LookupKey("archives.ddb.probe"); err != nil || k.Kind != KindString {
		t.Errorf("archives.ddb.probe: %+v %v", k, err)
	}
	for _, bad := range []string{"archives.ddb", "archives.ddb.url", "archives.Bad.probe", "archives..probe"} {
		if _, err := LookupKey(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// An archive's probe lives under "archives" in a settings file, resolves tree over
// user, and the file stays valid against its schema.
func TestArchiveSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := SettingsFile{Path: filepath.Join(dir, "user.json"), Shown: "user.json"}
	tree := SettingsFile{Path: filepath.Join(dir, "tree.json"), Shown: "tree.json"}
	uc, tc := NewConfig(), NewConfig()
	uc.Set("archives.ddb.probe", "curl -fsS https://ddb")
	uc.Set("archives.matricula.probe", "true")
	tc.Set("archives.ddb.probe", "sh ./probe.sh")
	tc.Set("run.minutes", int64(30))
	for f, c := range map[SettingsFile]*Config{user: uc, tree: tc} {
		if err := f.Save(c); err != nil {
			t.Fatal(err)
		}
	}
	u, err := user.Load()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tree.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{User: u, Tree: tr, UserFile: user, TreeFile: tree}
	if r, _ := s.Resolve("archives.ddb.probe", ""); r.Value != "sh ./probe.sh" || r.Source != FromTree {
		t.Errorf("ddb: %+v", r)
	}
	if r, _ := s.Resolve("archives.matricula.probe", ""); r.Value != "true" || r.Source != FromUser {
		t.Errorf("matricula: %+v", r)
	}
	if r, _ := s.Resolve("archives.none.probe", ""); r.Value != "" || r.Source != FromDefault {
		t.Errorf("none: %+v", r)
	}
	if got := s.ArchiveNames(); len(got) != 2 || got[0] != "ddb" || got[1] != "matricula" {
		t.Errorf("names: %v", got)
	}
	tr.Unset("archives.ddb.probe")
	if tr.Archives != nil || tr.Settings["run.minutes"] != int64(30) {
		t.Errorf("unset: %+v", tr)
	}
	if err := Validate(ConfigFile, []byte(`{"version":1,"archives":{"Bad":{"probe":"x"}}}`)); err == nil {
		t.Error("a bad archive name passed the schema")
	}
	if err := Validate(ConfigFile, []byte(`{"version":1,"archives":{"ddb":{}}}`)); err == nil {
		t.Error("an archive without a probe passed the schema")
	}
	if err := Validate(QueueFile, []byte(`{"version":1,"next_id":2,"tasks":[{"id":"T-1","title":"x","state":"open","created":"2026-11-30T09:00:00Z","updated":"2026-11-30T09:00:00Z","needs":["ddb","ddb"]}]}`)); err == nil {
		t.Error("a task needing an archive twice passed the schema")
	}
}
