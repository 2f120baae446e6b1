package band

//go:generate go run contend/cmd/contend validate --corpus --format json -o band.json
