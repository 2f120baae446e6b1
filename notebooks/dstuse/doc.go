// Seed 004: ipv6's lazy dst->__use update. Every packet wrote the shared
// dst; the patch counts on the per-cpu dst and flushes once per jiffy. The
// caption sets the prediction beside the commit message's table.
package main
