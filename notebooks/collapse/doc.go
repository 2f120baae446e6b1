// Ticket spinlock against MCS and qspinlock: the collapse Boyd-Wickizer et
// al. describe. Total throughput rises with CPUs until the lock saturates;
// past that point a ticket lock loses throughput with every CPU added, as
// each release sends the lock line to every waiter, while MCS and
// qspinlock hold on. The scenario is this folder's collapse.toml.
package main
