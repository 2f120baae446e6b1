// Package nb is what the notebooks share: load a scenario, draw a figure,
// read a number off its table, and write the figure, the table and the
// caption into figures/.
//
// A notebook is a script: every helper here stops the program with a
// message that says what failed, rather than returning an error the
// notebook would only print.
package nb
