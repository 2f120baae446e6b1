// Every published change the built-in scenarios reproduce, as measured
// against as the model predicts it: the figure users ask of a simulator
// first, what a patch will do. The caption names the misses.
package main
