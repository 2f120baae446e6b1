// Package iofiles is the files one contend command reads and writes: a
// scenario named by its built-in name or its path, with the includes it
// pulls in and the --profile it runs on, and the outputs of -o, --csv and
// --write. Errors name every file as the user named it, not as the loader
// resolved it.
//
// # Inputs are never outputs
//
// A Set holds every file a command read and is about to write. An output
// that is one of its inputs (a scenario, an include, a profile, a shard) or
// another output, by path, by symbolic link or by hard link, is refused
// before anything is simulated, as is an output path that is not a regular
// file or a new one in an existing folder. WriteFile then writes each
// atomically: a temporary file renamed over the path.
package iofiles
