package runfiles

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestActivityMark: the mark is written in place, the same inode and the same 40
// bytes each time; it reads back as the moment written, to the nanosecond; a mark
// half written over another (any mix of the two marks' bytes that is neither)
// reads as none, and so does a missing one; an older strom's variable-length time
// is read too.
func TestActivityMark(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run", "active-20261201T180000Z-abcd")
	if got := readActivity(path); !got.IsZero() {
		t.Fatalf("a missing mark reads as %v", got)
	}
	first := time.Date(2026, 12, 1, 12, 59, 59, 900000000, time.UTC)
	if err := writeActivity(path, first); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	second := time.Date(2026, 12, 1, 13, 0, 0, 100, time.FixedZone("CET", 3600))
	if err := writeActivity(path, second); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the second write replaced the file; it must write in place")
	}
	if after.Size() != int64(activitySize) || activitySize != 40 {
		t.Errorf("the mark is %d bytes (activitySize %d), want 40", after.Size(), activitySize)
	}
	if got := readActivity(path); !got.Equal(second) {
		t.Errorf("read %v, want %v", got, second)
	}

	a, b := encodeActivity(first), encodeActivity(second)
	for cut := 1; cut < activitySize; cut++ {
		torn := append(append([]byte{}, b[:cut]...), a[cut:]...)
		if string(torn) == string(a) || string(torn) == string(b) {
			continue
		}
		if got, ok := parseActivity(torn); ok {
			t.Errorf("a write cut after %d bytes %q reads as %v", cut, torn, got)
		}
		// The first write of a mark seen under way: no moment, or its own.
		if got, ok := parseActivity(b[:cut]); ok && !got.Equal(second) {
			t.Errorf("a mark cut short after %d bytes %q reads as %v", cut, b[:cut], got)
		}
	}

	older := filepath.Join(filepath.Dir(path), "active-older")
	if err := os.WriteFile(older, []byte("2026-12-01T13:00:00.5+01:00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := readActivity(older), time.Date(2026, 12, 1, 12, 0, 0, 500000000, time.UTC); !got.Equal(want) {
		t.Errorf("an older mark reads as %v, want %v", got, want)
	}
	if err := writeActivity(older, first); err != nil {
		t.Fatal(err)
	}
	if got := readActivity(older); !got.Equal(first) {
		t.Errorf("a mark written over an older one reads as %v, want %v", got, first)
	}
}

// FuzzActivityMark: whatever a mark's bytes, reading them never fails loudly, and a
// mark strom wrote reads back as its moment.
func FuzzActivityMark(f *testing.F) {
	f.Add([]byte(encodeActivity(time.Date(2026, 12, 1, 13, 0, 0, 1, time.UTC))), int64(0))
	f.Add([]byte("2026-12-01T13:00:00Z"), int64(1<<40))
	f.Add([]byte("2026-12-01T13:00:00.000000000Z 00000000\n"), int64(-1))
	f.Fuzz(func(t *testing.T, b []byte, ns int64) {
		parseActivity(b)
		at := time.Unix(0, ns).UTC()
		if at.Year() < 0 || at.Year() > 9999 {
			return
		}
		if got, ok := parseActivity(encodeActivity(at)); !ok || !got.Equal(at) {
			t.Errorf("the mark of %v reads as %v, %v", at, got, ok)
		}
	})
}
