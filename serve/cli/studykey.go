package cli

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/normgym/normgym/serve/server"
)

// Studies (issue 23): the keys that may create them, besides the admin
// token.

// studyKeysFlag defines normgym serve's --study-keys flag and returns
// what loads its file (nil keys when the flag is not given).
func studyKeysFlag(fs *flag.FlagSet) func(log *slog.Logger) (server.TeacherKeys, error) {
	file := fs.String("study-keys", "", "file of study keys (lines \"LABEL SHA256\" from normgym study-key LABEL; re-read when it changes) "+
		"that may create studies on /study (besides the admin token)")
	return func(log *slog.Logger) (server.TeacherKeys, error) {
		if *file == "" {
			return nil, nil
		}
		return server.TeacherKeyFile(*file, func(err error) { log.Error("study keys", "err", err) })
	}
}

func cmdStudyKey(e *env) error {
	fs := e.flags("study-key", "LABEL",
		"Makes a random study key. Give the key to a researcher (it lets them create studies on the /study page: a\n"+
			"design of cells with targets, a consent text, a platform's link and declared exclusions) and add the line it\n"+
			"prints to the file of normgym serve --study-keys: the file holds the key's hash, not the key. LABEL names the\n"+
			"key for you (lab-3; letters, digits, '.', '_', '-'; no email): studies keep it. Remove the line to revoke the key.")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("study-key needs one LABEL")
	}
	key, line, err := server.NewStudyKey(pos[0])
	if err != nil {
		return usageError("%s", strings.TrimPrefix(err.Error(), "server: "))
	}
	fmt.Fprintf(e.stdout, "key (give it to the researcher; it is not stored anywhere): %s\nline for the --study-keys file:\n%s\n", key, line)
	return nil
}
