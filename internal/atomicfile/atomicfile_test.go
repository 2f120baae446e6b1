package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"contend/internal/atomicfile"
)

// A write replaces the file whole, leaves no temporary file behind, and a
// write that cannot happen leaves the old contents.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.csv")
	for _, data := range []string{"first\n", "second\n"} {
		if err := atomicfile.Write(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}
