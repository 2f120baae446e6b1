package scenarios

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"contend/cpu"
	"contend/models"
)

// Scenario is a loaded, checked scenario file.
type Scenario struct {
	Name        string
	Description string
	File        string
	Profiles    map[string]*Profile
	Kernel      models.Kernel
	Params      map[string]Value
	Lines       []lineRaw
	Locks       []lockRaw
	Blocks      map[string][]stepRaw
	Variants    []*Variant
	Workload    Workload
	Run         RunConfig
	Sweep       []Axis
	Series      []*Series
}

// Profile is a hardware profile with the source of its numbers.
type Profile struct {
	cpu.Profile
	Description string
	Source      string
	durs        map[string]Dur // latency fields as written, resolved at the clock
}

// Value is a param: a duration or a plain number.
type Value struct {
	Dur    Dur
	Num    float64
	IsTime bool
}

// Variant is one code path of a patch.
type Variant struct {
	Name        string
	Description string
	Steps       []stepRaw
}

// Workload says what drives the cores.
type Workload struct {
	Kind         string // flood, batch, both
	Cores        int
	Rate         float64
	Ring         int
	BatchOps     int64
	BatchCPU     int // -1: the first CPU after the flood
	InitialItems int64
	BatchVariant string // "both": the batch runs this; the point's variant floods
	FloodVariant string // "both": the flood runs this; the point's variant is the batch
}

// RunConfig is run length and seeds.
type RunConfig struct {
	Warmup, Duration, Limit Dur
	Seed                    int64
	Replications            int
}

// Axis is one sweep axis.
type Axis struct {
	Name   string
	Values []float64
}

// Series is one measured machine: a profile, free parameters and references.
type Series struct {
	Name        string
	Description string
	Profile     string
	Variants    []string
	Params      map[string]Value
	Free        []string
	Axis        string
	Points      []float64
	Refs        []Reference
}

// Reference is a published or measured point.
type Reference struct {
	Scenario string // id in published.csv
	Variant  string
	Axis     string
	X        float64
	Metric   string
	Value    float64
	Unit     string
	Role     string // calibrate or validate
	Source   string
}

// Load reads the scenario file name from fsys, with its includes.
func Load(fsys fs.FS, name string) (*Scenario, error) {
	raw, loc, err := decodeFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return check(raw, loc)
}

// Parse checks a scenario given as bytes; includes are read from fsys.
func Parse(fsys fs.FS, name string, src []byte) (*Scenario, error) {
	raw, loc, err := decode(fsys, name, src, nil)
	if err != nil {
		return nil, err
	}
	return check(raw, loc)
}

func decodeFile(fsys fs.FS, name string) (*fileRaw, *locator, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, nil, &Error{File: name, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	return decode(fsys, name, src, nil)
}

func decode(fsys fs.FS, name string, src []byte, stack []string) (*fileRaw, *locator, error) {
	loc := newLocator(name, src)
	var raw fileRaw
	md, err := toml.Decode(string(src), &raw)
	if err != nil {
		if e := loc.typeError(md, string(src)); e != nil {
			return nil, nil, e
		}
		return nil, nil, loc.fromTOML(err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		last := k[len(k)-1]
		return nil, nil, loc.errAt(k.String(), k, "unknown key %q; check the spelling against the scenario language (see scenarios/doc.go and the built-in scenarios)", last)
	}
	for _, inc := range raw.Include {
		p := inc
		if !path.IsAbs(p) {
			p = path.Join(path.Dir(name), inc)
		}
		chain := append(append([]string{}, stack...), name)
		for _, s := range chain {
			if s == p {
				return nil, nil, loc.errAt("include", []string{"include", inc}, "include cycle: %s → %s; move what both files share into a third file that each includes", strings.Join(chain, " → "), p)
			}
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, nil, loc.errAt("include", []string{"include", inc}, "cannot read %s: %v; give a path relative to this file", p, err)
		}
		sub, subloc, err := decode(fsys, p, src, chain)
		if err != nil {
			return nil, nil, err
		}
		if err := merge(&raw, sub, loc, subloc); err != nil {
			return nil, nil, err
		}
	}
	return &raw, loc, nil
}

// mergeTable adds the named definitions of an included file to dst, refusing
// a name defined twice.
func mergeTable[V any](dst, src map[string]V, kind, prefix string, dup func(kind, name string) error, from func(key, newKey string)) error {
	for _, k := range sortedKeys(src) {
		if _, ok := dst[k]; ok {
			return dup(kind, k)
		}
		dst[k] = src[k]
		from(prefix+k, prefix+k)
	}
	return nil
}

// merge adds an included file's shared definitions to raw. Names must not
// clash: an include is a library, not an override.
func merge(raw, inc *fileRaw, loc, incloc *locator) error {
	dup := func(kind, name string) error {
		return incloc.errAt(kind, []string{name}, "%s %q is defined both here and in %s; keep one", kind, name, loc.file)
	}
	if len(inc.Variant) > 0 || len(inc.Series) > 0 || inc.Workload != nil || inc.Run != nil {
		return incloc.errAt("include", []string{"[["}, "an included file may hold only profile, kernel, params, line, lock and block tables")
	}
	if raw.origin == nil {
		raw.origin = map[string]*locator{}
	}
	// from records where inc's definition key came from: inc itself, or the
	// file inc included it from.
	from := func(key, newKey string) {
		if l, ok := inc.origin[key]; ok {
			raw.origin[newKey] = l
		} else {
			raw.origin[newKey] = incloc
		}
	}
	if raw.Profile == nil {
		raw.Profile = map[string]profileRaw{}
	}
	if raw.Params == nil {
		raw.Params = map[string]any{}
	}
	if raw.Block == nil {
		raw.Block = map[string][]stepRaw{}
	}
	if err := mergeTable(raw.Profile, inc.Profile, "profile", "profile.", dup, from); err != nil {
		return err
	}
	if err := mergeTable(raw.Params, inc.Params, "param", "params.", dup, from); err != nil {
		return err
	}
	if err := mergeTable(raw.Block, inc.Block, "block", "block.", dup, from); err != nil {
		return err
	}
	if inc.Kernel != nil {
		if raw.Kernel != nil {
			return incloc.errAt("kernel", []string{"[kernel]"}, "[kernel] is set both here and in %s; keep one", loc.file)
		}
		raw.Kernel = inc.Kernel
		from("kernel", "kernel")
	}
	for i := range inc.Line {
		from(fmt.Sprintf("line[%d]", i), fmt.Sprintf("line[%d]", len(raw.Line)))
		raw.Line = append(raw.Line, inc.Line[i])
	}
	for i := range inc.Lock {
		from(fmt.Sprintf("lock[%d]", i), fmt.Sprintf("lock[%d]", len(raw.Lock)))
		raw.Lock = append(raw.Lock, inc.Lock[i])
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
