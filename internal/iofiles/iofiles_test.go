package iofiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output may not be an input by any name: the path itself, a symbolic
// link to it, a hard link to it, or the path through a linked folder; nor
// may two outputs be one file. A file of its own is accepted.
func TestOutputIsNeverAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.toml")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym, hard, linkDir := filepath.Join(dir, "sym.toml"), filepath.Join(dir, "hard.toml"), filepath.Join(dir, "via")
	if err := os.Symlink(in, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, linkDir); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, sym, hard, filepath.Join(linkDir, "in.toml")} {
		var s Set
		if err := s.Read("the scenario "+in, in); err != nil {
			t.Fatal(err)
		}
		if err := s.Write("-o", out); err == nil || !strings.Contains(err.Error(), "is the scenario "+in+", an input") {
			t.Errorf("-o %s over the input: %v", out, err)
		}
	}
	var s Set
	if err := s.Read("the scenario "+in, in); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "out.csv")
	if err := s.Write("-o", own); err != nil {
		t.Errorf("-o %s, a file of its own: %v", own, err)
	}
	if err := s.Write("--csv", own); err == nil || !strings.Contains(err.Error(), "is also the file of -o") {
		t.Errorf("--csv %s, the file of -o: %v", own, err)
	}
	if err := s.Read("the shard "+own, own); err == nil || !strings.Contains(err.Error(), "an input, and would be replaced") {
		t.Errorf("reading the output %s: %v", own, err)
	}
}

// An output path is a regular file or a new name in a folder that exists.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		dir:                               "is a directory",
		filepath.Join(dir, "no", "f.csv"): "does not exist",
		filepath.Join(dir, "new.csv"):     "",
		os.DevNull:                        "is a device",
	} {
		err := CheckPath("-o", path)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckPath(%s) = %v, want %q", path, err, want)
		}
	}
}

// WriteFile replaces the file whole, and names the flag and the path the
// user gave when it cannot.
func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	for _, data := range []string{"first, longer\n", "second\n"} {
		if err := WriteFile("-o", path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("file holds %q, want %q", got, data)
		}
	}
	bad := filepath.Join(path, "x")
	if err := WriteFile("--csv", bad, nil); err == nil || !strings.HasPrefix(err.Error(), "--csv "+bad+": ") {
		t.Errorf("writing under a file: %v", err)
	}
}
