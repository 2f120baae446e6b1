// Package atomicfile writes a file so that a reader never sees it half
// written: the data goes to a temporary file in the same folder, which is
// synced and renamed over the target.
//
// The CLI's -o and the notebooks' figures both write through it: an
// interrupted run leaves the previous file, never a truncated one.
package atomicfile
