package scenarios

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.toml profiles/*.toml
var builtinFS embed.FS

// Builtin returns the embedded scenario files.
func Builtin() fs.FS { return builtinFS }

// BuiltinNames lists the built-in scenarios (files that are not includes).
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtinFS, ".")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			continue // profiles/: hardware profiles to include
		}
		name := strings.TrimSuffix(e.Name(), ".toml")
		if strings.HasPrefix(name, "common") {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// LoadBuiltin loads a built-in scenario by name.
func LoadBuiltin(name string) (*Scenario, error) { return Load(builtinFS, name+".toml") }
