// Seeds 000 and 003: the ingress qdisc's spinlock. Locked, per-CPU
// throughput collapses as soon as a second CPU takes packets; without the
// lock it stays flat. Where the locked CPUs' time goes is the second figure,
// which lines move between them the third.
package main
