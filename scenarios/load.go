package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"slices"
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
	Locks       []Lock
	Blocks      map[string][]Step
	Variants    []*Variant
	Workload    Workload
	Run         RunConfig
	Sweep       []Axis
	// Placements are the [sweep] placement values: every series gets a
	// what-if copy run with each that is not its own (expandPlacements).
	Placements []cpu.Placement
	// Axes says what each axis name drives: the flood's CPUs or the
	// batch's operations; the built-in names and the file's [axes]. Any
	// other axis is a param.
	Axes   map[string]Drives
	Series []*Series

	// Where the scenario was written, to place errors found later (see
	// Locate): its own file, the includes that defined blocks, and the
	// size of each block inlined.
	loc        *locator
	origin     map[string]*locator
	blockSizes map[string]int
}

// Profile is a hardware profile with the source of its numbers.
type Profile struct {
	cpu.Profile
	Description string
	Source      string
	durs        map[string]Dur // latency fields as written, resolved at the clock
	// Spread holds the measured spread of the latencies written with one,
	// as "45ns ± 4ns": one standard deviation (see Spreads).
	Spread map[string]Dur
	// SnoopGiven says the profile sets how long an owner keeps a line being
	// taken (snoop or snoop_window) rather than taking DefaultSnoop.
	SnoopGiven bool
}

// spinClearGiven says the profile sets spin_clear (in its file, or as an
// override) rather than taking cpu.DefaultSpinClearCycles where the
// workload spins tight.
func (p *Profile) spinClearGiven() bool {
	_, ok := p.durs["spin_clear"]
	return ok
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
	Steps       []Step
}

// Workload says what drives the cores.
type Workload struct {
	Kind         WorkloadKind
	Cores        int
	Rate         float64
	Ring         int
	BatchOps     int64
	BatchCPU     int // -1: the first CPU after the flood
	InitialItems int64
	BatchVariant string // "both": the batch runs this; the point's variant floods
	FloodVariant string // "both": the flood runs this; the point's variant is the batch
	// Unit is what one run of a program is called in tables: "packet"
	// (rates in Mpps), or the scenario's own word (rates in M<unit>s/s).
	Unit string
	// BatchUnitName is, beside a flood (kind "both"), what one run of the
	// batch's program is called ("" : op).
	BatchUnitName string
	// Where the threads run: the CPUs in the order they are taken (a list
	// given in the file), else the order of Placement.
	CPUs      []int
	Placement cpu.Placement
	// TightSpin: spin loops read their line back to back, with no PAUSE
	// between the reads (a user-space loop), where the kernel's cpu_relax()
	// pauses; a spinner then notices a write within a load, not a pause.
	TightSpin bool
}

// RunConfig is run length and seeds.
type RunConfig struct {
	Warmup, Duration, Limit Dur
	Seed                    int64
	Replications            int
	// MaxEvents bounds the simulated events of one point.
	MaxEvents int64
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
	Placement   *cpu.Placement // nil: the workload's
	// Base is the variant the series' others are changes of (a commit's
	// before); validate reports each change as measured and predicted.
	Base string
	// Copy: [sweep] placement made this series, not the file (a what-if
	// copy of one of its series, or one per placement when it has none).
	Copy bool
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
	raw, loc, err := readFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return check(raw, loc)
}

// readFile reads and decodes the file name from fsys, with its includes.
func readFile(fsys fs.FS, name string) (*fileRaw, *locator, error) {
	l := &loader{fsys: fsys, seen: map[string]bool{}}
	src, err := l.read(name)
	if err != nil {
		return nil, nil, &Error{File: name, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	return l.decode(name, src, nil)
}

// Parse checks a scenario given as bytes; includes are read from fsys.
func Parse(fsys fs.FS, name string, src []byte) (*Scenario, error) {
	if len(src) > MaxFileBytes {
		return nil, &Error{File: name, Msg: tooBig(len(src))}
	}
	l := &loader{fsys: fsys, seen: map[string]bool{name: true}}
	raw, loc, err := l.decode(name, src, nil)
	if err != nil {
		return nil, err
	}
	return check(raw, loc)
}

// loader reads a scenario and its includes, each file once.
type loader struct {
	fsys fs.FS
	seen map[string]bool // files read so far
}

func tooBig(n int) string {
	return fmt.Sprintf("%d bytes; a scenario file holds at most %d (MaxFileBytes): move shared parts into blocks or includes", n, MaxFileBytes)
}

// read returns a file's bytes, refusing what is not a regular file or is too
// big to be a scenario. Its errors say why, not which file: callers name it
// as the user wrote it.
func (l *loader) read(name string) ([]byte, error) {
	l.seen[name] = true
	if len(l.seen) > MaxIncludedFiles {
		return nil, fmt.Errorf("more than %d files in one scenario (MaxIncludedFiles); include fewer files", MaxIncludedFiles)
	}
	if !fs.ValidPath(name) {
		return nil, errors.New("the path climbs out of the top folder; give a path that stays inside it")
	}
	st, err := fs.Stat(l.fsys, name)
	if err != nil {
		return nil, unwrapPath(err)
	}
	switch {
	case st.IsDir():
		return nil, errors.New("it is a directory; give the path of a .toml scenario file")
	case !st.Mode().IsRegular():
		return nil, errors.New("not a regular file (a FIFO, a device or a socket); give the path of a .toml scenario file")
	case st.Size() > MaxFileBytes:
		return nil, errors.New(tooBig(int(st.Size())))
	}
	src, err := fs.ReadFile(l.fsys, name)
	if err != nil {
		return nil, unwrapPath(err)
	}
	if len(src) > MaxFileBytes {
		return nil, errors.New(tooBig(len(src)))
	}
	return src, nil
}

// unwrapPath drops the operation and path of a *fs.PathError: the message
// names the file already, as the user wrote it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *loader) decode(name string, src []byte, stack []string) (*fileRaw, *locator, error) {
	if err := CheckNesting(name, src); err != nil {
		return nil, nil, err
	}
	loc := newLocator(name, src)
	var raw fileRaw
	md, err := toml.Decode(string(src), &raw)
	if err != nil {
		if e := loc.typeError(md, string(src)); e != nil {
			return nil, nil, e
		}
		return nil, nil, loc.fromTOML(err)
	}
	if und := slices.DeleteFunc(md.Undecoded(), underAny); len(und) > 0 {
		k := und[0]
		last := k[len(k)-1]
		return nil, nil, loc.errAt(k.String(), k, "unknown key %q; %s", last, knownKeysHint(k))
	}
	chain := append(append([]string{}, stack...), name)
	for _, inc := range raw.Include {
		p := inc
		if !path.IsAbs(p) {
			p = path.Join(path.Dir(name), inc)
		}
		at := []string{"include", inc}
		if slices.Contains(chain, p) {
			return nil, nil, loc.errAt("include", at, "include cycle: %s → %s; move what both files share into a third file that each includes", strings.Join(chain, " → "), p)
		}
		if l.seen[p] {
			continue // a diamond: its definitions came in through another path
		}
		if len(chain) >= MaxIncludeDepth {
			return nil, nil, loc.errAt("include", at, "includes nest more than %d deep (MaxIncludeDepth); include the shared files from fewer levels", MaxIncludeDepth)
		}
		src, err := l.read(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, loc.errAt("include", at, "cannot read %q: %v; give a path relative to this file", inc, err)
			}
			return nil, nil, loc.errAt("include", at, "cannot read %q: %v", inc, err)
		}
		sub, subloc, err := l.decode(p, src, chain)
		if err != nil {
			return nil, nil, err
		}
		if err := merge(&raw, sub, loc, subloc); err != nil {
			return nil, nil, err
		}
	}
	return &raw, loc, nil
}

// underAny says whether key k lies inside a value the schema takes of any
// type (a param, a sweep axis): the decoder leaves such keys undecoded, and
// the checker says what type the value should have been.
func underAny(k toml.Key) bool {
	for i := 1; i < len(k); i++ {
		if t, ok := schemaAt(reflect.TypeFor[fileRaw](), k[:i]); ok && t.Kind() == reflect.Interface {
			return true
		}
	}
	return false
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
