package scenarios

import (
	"io/fs"
	"reflect"
	"strings"
)

// LoadProfile reads a profile file (what contend calibrate writes): exactly
// one [profile.NAME] table, checked like a scenario's.
func LoadProfile(fsys fs.FS, name string) (*Profile, error) {
	raw, loc, err := readFile(fsys, name)
	if err != nil {
		return nil, err
	}
	if other := raw.nonProfile(); other != "" {
		return nil, loc.errAt(other, []string{other}, "a profile file holds only one [profile.NAME] table; move %s into a scenario", other)
	}
	if len(raw.Profile) != 1 {
		return nil, loc.errAt("profile", nil, "%d profile tables; a profile file holds exactly one [profile.NAME]", len(raw.Profile))
	}
	c := &checker{loc: loc, origin: raw.origin, s: &Scenario{Profiles: map[string]*Profile{}}}
	pname := sortedKeys(raw.Profile)[0]
	c.profile(pname, raw.Profile[pname])
	if c.err != nil {
		return nil, c.err
	}
	return c.s.Profiles[pname], nil
}

// nonProfile names the first top-level table or key of raw that a profile
// file may not hold, or returns "".
func (raw *fileRaw) nonProfile() string {
	v := reflect.ValueOf(raw).Elem()
	for i := range v.NumField() {
		key := strings.Split(v.Type().Field(i).Tag.Get("toml"), ",")[0]
		if key == "" || key == "profile" || key == "include" {
			continue
		}
		if !v.Field(i).IsZero() {
			return key
		}
	}
	return ""
}

// UseProfile makes every series of s, and a run without series, use p: the
// way to simulate a scenario on a measured machine.
func (s *Scenario) UseProfile(p *Profile) {
	s.Profiles = map[string]*Profile{p.Name: p}
	for _, se := range s.Series {
		se.Profile = p.Name
	}
}

// ProfileKeys lists the keys a [profile.NAME] table accepts, in schema order.
func ProfileKeys() []string {
	t := reflect.TypeFor[profileRaw]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, strings.Split(t.Field(i).Tag.Get("toml"), ",")[0])
	}
	return out
}
