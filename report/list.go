package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"contend/scenarios"
)

// WriteList writes contend list: every built-in scenario's series, with
// its profile and variants.
func WriteList(buf *bytes.Buffer) error {
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSERIES\tPROFILE\tVARIANTS")
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			return err
		}
		for _, se := range s.Series {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, se.Name, se.Profile, strings.Join(se.Variants, ", "))
		}
		if len(s.Series) == 0 {
			// Runnable all the same (host-microbench, on the profile
			// calibrate measures): its own profiles and every variant.
			var profiles, variants []string
			for p := range s.Profiles {
				profiles = append(profiles, p)
			}
			slices.Sort(profiles)
			for _, v := range s.Variants {
				variants = append(variants, v.Name)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, "-", strings.Join(profiles, ", "), strings.Join(variants, ", "))
		}
	}
	return tw.Flush()
}
