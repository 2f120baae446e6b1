package sweep

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// shardKind marks a file as a shard, so merge refuses any other JSON. v2
// added the digest.
const shardKind = "contend sweep shard v2"

// Slice is slice Index of Count: the points whose number modulo Count
// is Index. Dealing points round-robin spreads the heavy points (many CPUs)
// evenly over the shards.
type Slice struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Slice) has(i int) bool { return i%s.Count == s.Index }

func (s Slice) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Shard is what sweep --shard writes: enough to check that shards
// belong together and to print the sweep without the scenario at hand.
type Shard struct {
	Kind      string         `json:"kind"`
	Format    string         `json:"format"` // what merge prints, from sweep's --format
	Seed      int64          `json:"seed"`   // --seed (0: each scenario's own)
	Shard     Slice          `json:"shard"`
	Scenarios []PlanScenario `json:"scenarios"`
	Groups    []Group        `json:"groups"`
	Points    []shardPoint   `json:"points"` // every point of the sweep, not only this slice's
	Results   []shardResult  `json:"results"`
	// Digest is the sha256 of the shard without it: the scenarios' hashes
	// say which sweep a shard belongs to, the digest that its values are
	// the ones sweep wrote.
	Digest string `json:"digest"`
}

// digest returns the sha256 of f's JSON with the digest left empty.
func (f Shard) digest() string {
	f.Digest = ""
	b, err := json.Marshal(f)
	if err != nil {
		panic("contend: a shard does not encode: " + err.Error())
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(b))
}

type shardPoint struct {
	Scenario string  `json:"scenario"`
	Series   string  `json:"series"`
	Variant  string  `json:"variant"`
	Axis     string  `json:"axis"`
	X        float64 `json:"x"`
	Seed     int64   `json:"seed"`
}

// shardResult is a point's metrics, in the order of its group's Metrics.
type shardResult struct {
	Point  int     `json:"point"`
	Values []exact `json:"values"`
}

// Shard packs the values of slice sl for writing.
func (p *Plan) Shard(sl Slice, format string, seed int64, values [][]float64) Shard {
	f := Shard{Kind: shardKind, Format: format, Seed: seed, Shard: sl, Scenarios: p.Scenarios, Groups: p.Groups}
	for i, pt := range p.points {
		g := p.Groups[pt.group]
		f.Points = append(f.Points, shardPoint{Scenario: p.Scenarios[g.Scenario].Name, Series: g.Series,
			Variant: pt.Variant, Axis: pt.Axis, X: pt.X, Seed: pt.Seed})
		if values[i] == nil {
			continue
		}
		r := shardResult{Point: i, Values: make([]exact, len(values[i]))}
		for m, v := range values[i] {
			r.Values[m] = exact(v)
		}
		f.Results = append(f.Results, r)
	}
	f.Digest = f.digest()
	return f
}

// ParseSlice reads the slice sweep --shard spec (I/N, or auto with
// --shard-count count) asks for; nil for the whole sweep. Auto reads the
// array variables of a Kubernetes Indexed Job or a Slurm job array through
// getenv.
func ParseSlice(spec string, count int, getenv func(string) string) (*Slice, error) {
	switch {
	case spec == "" && count != 0:
		return nil, fmt.Errorf("--shard-count %d: only with --shard auto", count)
	case spec == "":
		return nil, nil
	case spec == "auto":
		return autoSlice(count, getenv)
	case count != 0:
		return nil, fmt.Errorf("--shard-count %d: only with --shard auto; --shard %s already gives the count", count, spec)
	}
	i, n, ok := strings.Cut(spec, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--shard %q: give I/N, e.g. --shard 0/3 for the first of three slices, or auto", spec)
	}
	return checkSlice("--shard "+spec, index, count)
}

func checkSlice(what string, index, count int) (*Slice, error) {
	if count < 1 || index < 0 || index >= count {
		return nil, fmt.Errorf("%s: slice %d of %d does not exist; slices count from 0 to N-1 (0/3, 1/3, 2/3)", what, index, count)
	}
	return &Slice{index, count}, nil
}

// autoSlice reads the slice from the array variables of a Kubernetes
// Indexed Job or a Slurm job array.
func autoSlice(count int, getenv func(string) string) (*Slice, error) {
	// An empty variable counts as unset: a wrapper script may export it
	// empty.
	if v := getenv("JOB_COMPLETION_INDEX"); v != "" {
		index, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%q is not a number", v)
		}
		if count == 0 {
			return nil, errors.New("--shard auto in a Kubernetes Indexed Job: give --shard-count N, the Job's completions")
		}
		return checkSlice("--shard auto (JOB_COMPLETION_INDEX="+v+")", index, count)
	}
	v := getenv("SLURM_ARRAY_TASK_ID")
	if v == "" {
		return nil, errors.New("--shard auto: neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm array) is set; give --shard I/N")
	}
	id, err := strconv.Atoi(v)
	if err != nil {
		return nil, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%q is not a number", v)
	}
	// An array submitted as --array=1-3 numbers its tasks from 1.
	lo := 0
	if m := getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
		if lo, err = strconv.Atoi(m); err != nil {
			return nil, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_MIN=%q is not a number", m)
		}
	}
	if count == 0 {
		c := getenv("SLURM_ARRAY_TASK_COUNT")
		if count, err = strconv.Atoi(c); err != nil {
			return nil, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_COUNT=%q is not a number; give --shard-count N", c)
		}
	}
	what := fmt.Sprintf("--shard auto (SLURM_ARRAY_TASK_ID=%s, SLURM_ARRAY_TASK_MIN=%d)", v, lo)
	sl, err := checkSlice(what, id-lo, count)
	if err != nil {
		return nil, fmt.Errorf("%w; submit the array as --array=0-%d with no step", err, count-1)
	}
	return sl, nil
}

// exact is a float64 that survives JSON bit for bit, NaN and infinities
// included (as the strings "NaN", "+Inf", "-Inf").
type exact float64

func (x exact) MarshalJSON() ([]byte, error) {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return json.Marshal(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

func (x *exact) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(math.IsNaN(v) || math.IsInf(v, 0)) {
			return fmt.Errorf("value %s: a number, or \"NaN\", \"+Inf\" or \"-Inf\"", b)
		}
		*x = exact(v)
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("value %s: a number, or \"NaN\", \"+Inf\" or \"-Inf\"", b)
	}
	*x = exact(v)
	return nil
}
