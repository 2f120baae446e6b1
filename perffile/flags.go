package perffile

import (
	"flag"
	"fmt"
	"strings"
)

// MatchFlags declares the flags that say how a measured file meets a
// scenario: the smallest symbol share kept, and the cachelines and lock
// classes of its lines and locks where the file does not say.
func (o *Options) MatchFlags(fs *flag.FlagSet) {
	fs.Float64Var(&o.MinShare, "min-share", 1, "keep perf report symbols with at least this `percent` of cycles")
	o.Lines, o.Locks = map[string]string{}, map[string]string{}
	fs.Var(given(o.Lines), "line", "the perf c2c cacheline of a line of the scenario, `LINE=0xADDRESS` (repeatable), where its symbols do not say")
	fs.Var(given(o.Locks), "lock", "the lock_stat class of a lock of the scenario, `LOCK=CLASS` (repeatable), where its name does not say")
}

// given is a repeatable NAME=VALUE flag.
type given map[string]string

func (g given) String() string { return "" }

func (g given) Set(v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok || name == "" || val == "" {
		return fmt.Errorf("%q: give NAME=VALUE", v)
	}
	if _, dup := g[name]; dup {
		return fmt.Errorf("%q: %s is given twice; give it once", v, name)
	}
	g[name] = val
	return nil
}
