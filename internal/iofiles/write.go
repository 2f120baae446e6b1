package iofiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"contend/internal/atomicfile"
)

// CheckPath accepts as the file of an output flag (-o, --csv, --write) a
// regular file or a new path in an existing directory; anything else (a
// FIFO, a device, a symlink, a directory) would be replaced by the rename.
func CheckPath(flag, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir, derr := os.Stat(filepath.Dir(path))
		if derr != nil || !dir.IsDir() {
			return fmt.Errorf("%s %s: the directory %s does not exist; create it or write elsewhere", flag, path, filepath.Dir(path))
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %v", flag, path, UnwrapPath(err))
	case st.Mode().IsRegular():
		return nil
	case st.IsDir():
		return fmt.Errorf("%s %s: is a directory; give a file name", flag, path)
	}
	return fmt.Errorf("%s %s: is %s, not a regular file, and would be replaced; give a regular file or a new path", flag, path, kindOf(st.Mode()))
}

// kindOf names a file type the way ls -l's users do.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// UnwrapPath drops the operation and path of a *fs.PathError: messages name
// the path the user gave, not a temporary file.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFile writes data, the output of flag, to a temporary file next to
// path and renames it over path, so a reader never sees a half-written
// file.
func WriteFile(flag, path string, data []byte) error {
	if err := CheckPath(flag, path); err != nil {
		return err // replaced by something else while the run went on
	}
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, UnwrapPath(err))
	}
	return nil
}

// CheckDir accepts as the folder of an output flag (advise --write) an
// existing directory, and makes one that does not exist yet (with its
// parents, as mkdir -p does).
func CheckDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s %s: %w; name a folder that can be made", flag, dir, UnwrapPath(err))
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, dir, UnwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("%s %s: not a directory but a file; name a folder (made if it does not exist)", flag, dir)
	}
	return nil
}
