// Package notebooks holds one short program per figure of the seed threads;
// each simulates its scenario and writes the figure (SVG and a 300 dpi PNG),
// the CSV behind it and a Markdown caption with the numbers into figures/.
//
// # Regenerating
//
// go generate ./notebooks reruns them all (a minute or two). The programs
// are meant to be copied: change the scenario, the kind or the caption and
// you have the figure for your own patch.
package notebooks

//go:generate go run ./ingress
//go:generate go run ./dstuse
//go:generate go run ./flower
//go:generate go run ./collapse
//go:generate go run ./changes
