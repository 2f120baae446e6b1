// Seed 002: tc filter insertion got 40 times slower in 5.2 because flower
// called synchronize_rcu for every filter. The first figure is insertion
// time and CPU use against filters installed; the second shows the grace
// periods the deferred-free fix waits for instead, with the memory that
// waits with them.
package main
