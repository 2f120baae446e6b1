// Package atomicfile writes a file so that a reader never sees it half
// written: the data goes to a temporary file in the same folder, which is
// synced and renamed over the target.
//
// The CLI's -o and the notebooks' figures both write through it: an
// interrupted run leaves the previous file, never a truncated one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path atomically, readable like a file a shell
// redirection creates (0644).
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600.
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
