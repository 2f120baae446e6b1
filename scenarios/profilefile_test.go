package scenarios_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

const hostProfile = `[profile.box]
ghz = 2
sockets = 1
cores_per_socket = 4
l1_hit = "1ns"
smt_sibling = "20ns"
same_socket = "80ns"
other_socket = "150ns"
memory = "100ns"
atomic = "9ns"
wakeup = "10us"
`

// A profile file is one profile table, checked like a scenario's; with it,
// every series of a scenario runs on that machine.
func TestLoadProfile(t *testing.T) {
	p, err := scenarios.LoadProfile(fstest.MapFS{"box.toml": {Data: []byte(hostProfile)}}, "box.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "box" || p.Atomic.Nanoseconds() != 9 {
		t.Errorf("loaded %s with atomic %v, want box with 9ns", p.Name, p.Atomic)
	}
	s, err := scenarios.LoadBuiltin("ingress")
	if err != nil {
		t.Fatal(err)
	}
	s.UseProfile(p)
	for _, se := range s.Series {
		if se.Profile != "box" {
			t.Errorf("series %s still on profile %s", se.Name, se.Profile)
		}
	}
	if names := s.ProfileNames(); len(names) != 1 || names[0] != "box" {
		t.Errorf("profiles %v, want only box", names)
	}
	for _, tc := range []struct{ src, want string }{
		{hostProfile + "[params]\nx = \"1ns\"\n", "box.toml:12:2: params: a profile file holds only one [profile.NAME] table"},
		{hostProfile + strings.ReplaceAll(hostProfile, "box", "other"), "2 profile tables"},
		{strings.Replace(hostProfile, `atomic = "9ns"`, `atomic = "9 nanoseconds"`, 1), "profile.box.atomic"},
		{strings.Replace(hostProfile, `atomic = "9ns"`, `atomc = "9ns"`, 1), `unknown key "atomc"`},
	} {
		_, err := scenarios.LoadProfile(fstest.MapFS{"box.toml": {Data: []byte(tc.src)}}, "box.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
