// Package cli implements the normgym command's subcommands. Main is the
// whole program minus process setup, so tests can run it in-process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// env is what a subcommand gets: its arguments and the standard streams.
type env struct {
	ctx    context.Context
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand.
type command struct {
	summary string
	run     func(e *env) error
}

// commands are the subcommands: every one is registered here, and only
// here.
var commands = map[string]command{
	"norms":         {"list the norm catalog", cmdNorms},
	"suites":        {"list the suites", cmdSuites},
	"run":           {"run baseline newcomers over a suite", cmdRun},
	"eval":          {"run a language model (any OpenAI-compatible endpoint) over a suite", cmdEval},
	"demos":         {"write a baseline's visits as chat-format JSON Lines for fine-tuning", cmdDemos},
	"replay":        {"re-execute result records and check their scores and hashes", cmdReplay},
	"report":        {"tables and charts from result records", cmdReport},
	"show":          {"print the text observation a model sees at a visit's start", cmdShow},
	"play":          {"play a visit in the terminal", cmdPlay},
	"serve":         {"run the NormGym site: web app, verified runs, leaderboard, classrooms", cmdServe},
	"teacher-key":   {"make a teacher key for a server's --teacher-keys file", cmdTeacherKey},
	"submitter-key": {"make a submitter key for a server's --submitter-keys file", cmdSubmitterKey},
	"study-key":     {"make a study key for a server's --study-keys file", cmdStudyKey},
	"version":       {"print the versions a result depends on and the embedded sim.wasm's hash", cmdVersion},
}

// errUsage marks a usage error: exit code 2.
var errUsage = errors.New("usage")

// usageError wraps a message as a usage error.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// errMismatch marks a failed check (replay): exit code 1 without a message.
var errMismatch = errors.New("mismatch")

// Main runs the normgym command with args (without the program name) and
// returns the exit code: 0 success, 1 failure, 2 usage error.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return exit(c.run(&env{ctx, []string{"-h"}, stdin, stdout, stderr}), stderr)
			}
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "normgym: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return exit(c.run(&env{ctx, args[1:], stdin, stdout, stderr}), stderr)
}

func exit(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errMismatch):
		return 1
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "normgym: %s\n", strings.TrimPrefix(err.Error(), "usage: "))
		return 2
	}
	fmt.Fprintf(stderr, "normgym: %v\n", err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprint(w, "normgym — a benchmark of learning hidden social norms from interaction\n\nUsage: normgym <command> [flags]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, "\nRun \"normgym <command> -h\" for a command's flags.\n")
}

// flags returns a FlagSet for a subcommand that reports to e.stderr and
// whose parse errors become usage errors.
func (e *env) flags(name, args, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("normgym "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: normgym %s %s\n\n%s\n", name, args, about)
		var has bool
		fs.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprint(e.stderr, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags, turning errors into usage errors. Flags may come
// before or after positional arguments.
func (e *env) parse(fs *flag.FlagSet) ([]string, error) {
	var pos []string
	args := e.args
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
