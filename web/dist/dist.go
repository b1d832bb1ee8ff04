// Package dist embeds the built web app (the static site `make web`
// builds) so that the normgym binary serves it from anywhere, with no
// folder beside it.
//
// The site is generated, not committed: `make web` builds it into
// build/web and copies it into files/, whose README.txt is committed so
// that this package compiles on a fresh clone; Built then reports false
// and the server shows a page saying how to build the app.
package dist

import (
	"embed"
	"io/fs"
)

//go:embed all:files
var files embed.FS

// FS returns the built site's files (index.html at its root).
func FS() fs.FS {
	sub, err := fs.Sub(files, "files")
	if err != nil {
		panic(err) // "files" is a constant, valid path
	}
	return sub
}

// Built reports whether the site was built into this binary.
func Built() bool {
	_, err := fs.Stat(files, "files/index.html")
	return err == nil
}
