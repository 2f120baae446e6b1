// Package band says how far to trust a prediction: the error band of its
// kind of figure, learned from every published case the model predicts.
//
// # Kinds
//
// A prediction's kind is decided from its scenario alone, never from its
// name: its figure (a contended or uncontended throughput, a change
// against the series' base, an RCU latency, a duration, a share) from the
// metric and the CPUs its point takes, and its reach from how those CPUs
// compare with the calibrate points its series was fitted to (the same
// CPU count, another, across more sockets, or nothing fitted). A kind with
// fewer than MinPoints published points pools with its figure at every
// reach, then with every figure (changes, in points, pool only with
// changes), and says so.
//
// # Bands
//
// A band is the split-conformal 90% quantile of the errors of its kind,
// each error the distance of the measured figure from the prediction in
// percent of the prediction (in points for a change). A case is one
// machine's published measurements (CaseOf): the band each case gets in
// validate is learned without that case's points, and each band reports
// how many of its points fell within the band learned without their case.
// band.json holds the bands and the corpus they came from; after a model
// change, go generate ./band rewrites it, and a test fails while it is
// stale. Widen combines a band with a prediction's interval over the
// profile's spread: the interval widened at each end by the band.
package band
