// Package version says which build of contend is running: the module's
// version, the commit it was built from and whether the tree had changes
// beyond it, from the build information Go records.
package version

import (
	"runtime"
	"runtime/debug"
)

// Tool names the build: "contend (devel) 1a2b3c4d… (modified)".
func Tool() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "contend (unknown build)"
	}
	v := "contend " + bi.Main.Version
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			v += " " + s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			v += " (modified)"
		}
	}
	return v
}

// Line is what contend version prints: the build and the Go that built it.
func Line() string { return Tool() + ", " + runtime.Version() }
