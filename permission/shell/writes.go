package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Write is a file a command line writes, creates, moves or removes.
type Write struct {
	// Name is the file as the line names it (after glob expansion).
	Name string
	// Paths are where Name leads from every directory the command may
	// run in: made absolute lexically (as a rule written on it would
	// name it) and resolved through symlinks.
	Paths []string
}

// Writes returns the files s and every script nested in it write, by
// redirection or by a command known to write its operands (tee, cp, mv,
// rm, sed -i, dd of=, ...), and why some writes cannot be known: a
// target only known at run time (a variable, xargs, find -delete), an
// option the classifier does not know, code only known at run time.
// Package permission holds them against Edit deny rules.
func (s *Script) Writes() (writes []Write, unknown []string) {
	var walk func(s *Script)
	walk = func(s *Script) {
		for _, w := range s.written {
			if !containsWrite(writes, w) {
				writes = append(writes, w)
			}
		}
		for _, u := range s.unknownWrites {
			if !contains(unknown, u) {
				unknown = append(unknown, u)
			}
		}
		for _, c := range s.cmds {
			if c.inner != nil {
				walk(c.inner)
			}
		}
	}
	walk(s)
	return writes, unknown
}

func containsWrite(list []Write, w Write) bool {
	for _, v := range list {
		if v.Name == w.Name && strings.Join(v.Paths, "\x00") == strings.Join(w.Paths, "\x00") {
			return true
		}
	}
	return false
}

// wrote records that the line writes name (relative to the command's
// directories, or absolute).
func (a *analysis) wrote(name string) {
	if harmlessDevices[name] || name == "" {
		return
	}
	w := Write{Name: name}
	for _, cwd := range a.cwds {
		for _, p := range []string{lexAbs(cwd, name), realPath(cwd, name)} {
			if !contains(w.Paths, p) {
				w.Paths = append(w.Paths, p)
			}
		}
	}
	if !containsWrite(a.s.written, w) {
		a.s.written = append(a.s.written, w)
	}
}

// unknownWrite records why a file the line writes cannot be known.
func (a *analysis) unknownWrite(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !contains(a.s.unknownWrites, msg) {
		a.s.unknownWrites = append(a.s.unknownWrites, msg)
	}
}

// redirectTarget records the file a redirection writes: a pattern is
// expanded (bash writes to its one match), an expansion is unknown.
func (a *analysis) redirectTarget(w Word) {
	if w.literal {
		a.wrote(w.value)
		return
	}
	names, why := a.expandAll(w)
	if why != "" {
		a.unknownWrite("a redirection writes to %s, only known at run time", w.src)
		return
	}
	for _, n := range names {
		a.wrote(n)
	}
}

// targetKind says which operands of a command it writes.
type targetKind uint8

const (
	// allOperands: every operand is written, created or removed (rm,
	// touch, tee, chmod, mv's sources, ...).
	allOperands targetKind = iota
	// lastOperand: the last operand (or the -t directory) receives
	// copies of the others, which are only read (cp, install).
	lastOperand
)

// writer says how a command that writes files names them.
type writer struct {
	// spec are the command's options; one not on it makes the written
	// files unknown. Its operands are text: a run-time operand is an
	// unknown write, not a reason to stop parsing.
	spec *cmdSpec
	// targets says which operands are written.
	targets targetKind
	// dirOpts are the options naming a directory that receives the
	// operands (cp -t DIR).
	dirOpts []string
	// intoDir says the destination may be a directory the sources land
	// in (cp a b dir/ writes dir/a and dir/b).
	intoDir bool
}

// writers are the commands known to write the files they name. A
// command not here may write too (make, python, a script), which a
// sandbox, not the classifier, has to hold.
var writers = sync.OnceValue(func() map[string]*writer {
	targetDir := []opt{{"-t", optValue}, {"--target-directory", optValue}, {"-T", optFlag}, {"--no-target-directory", optFlag}}
	backup := []opt{{"-b", optFlag}, {"--backup", optMaybe}, {"-S", optValue}, {"--suffix", optValue}}
	verbose := []opt{{"-v", optFlag}, {"--verbose", optFlag}}
	force := []opt{{"-f", optFlag}, {"--force", optFlag}, {"-i", optFlag}, {"--interactive", optMaybe}}
	owner := []opt{
		{"-R", optFlag}, {"--recursive", optFlag}, {"-c", optFlag}, {"--changes", optFlag}, {"-f", optFlag},
		{"--silent", optFlag}, {"--quiet", optFlag}, {"-h", optFlag}, {"--no-dereference", optFlag},
		{"--dereference", optFlag}, {"-H", optFlag}, {"-L", optFlag}, {"-P", optFlag}, {"--reference", optValue},
		{"--from", optValue}, {"--preserve-root", optFlag}, {"--no-preserve-root", optFlag},
	}
	return map[string]*writer{
		"rm": {spec: spec(join(force, verbose, []opt{
			{"-r", optFlag}, {"-R", optFlag}, {"--recursive", optFlag}, {"-d", optFlag}, {"--dir", optFlag},
			{"-I", optFlag}, {"--one-file-system", optFlag}, {"--preserve-root", optMaybe}, {"--no-preserve-root", optFlag},
		}), text)},
		"rmdir":  {spec: spec(join(verbose, []opt{{"-p", optFlag}, {"--parents", optFlag}, {"--ignore-fail-on-non-empty", optFlag}}), text)},
		"unlink": {spec: spec(nil, text)},
		"mkdir": {spec: spec(join(verbose, []opt{
			{"-p", optFlag}, {"--parents", optFlag}, {"-m", optValue}, {"--mode", optValue},
		}), text)},
		"touch": {spec: spec([]opt{
			{"-a", optFlag}, {"-c", optFlag}, {"--no-create", optFlag}, {"-m", optFlag}, {"-h", optFlag},
			{"--no-dereference", optFlag}, {"-d", optValue}, {"--date", optValue}, {"-t", optValue},
			{"-r", optValue}, {"--reference", optValue}, {"--time", optValue},
		}, text)},
		"truncate": {spec: spec([]opt{
			{"-c", optFlag}, {"--no-create", optFlag}, {"-o", optFlag}, {"--io-blocks", optFlag},
			{"-r", optValue}, {"--reference", optValue}, {"-s", optValue}, {"--size", optValue},
		}, text)},
		"shred": {spec: spec(join(verbose, []opt{
			{"-f", optFlag}, {"--force", optFlag}, {"-n", optValue}, {"--iterations", optValue},
			{"-s", optValue}, {"--size", optValue}, {"-u", optFlag}, {"--remove", optMaybe}, {"-x", optFlag},
			{"--exact", optFlag}, {"-z", optFlag}, {"--zero", optFlag}, {"--random-source", optValue},
		}), text)},
		"tee": {spec: spec([]opt{
			{"-a", optFlag}, {"--append", optFlag}, {"-i", optFlag}, {"--ignore-interrupts", optFlag},
			{"-p", optFlag}, {"--output-error", optMaybe},
		}, text)},
		"chmod": {spec: spec(owner, text)},
		"chown": {spec: spec(owner, text)},
		"chgrp": {spec: spec(owner, text)},
		"cp": {spec: spec(join(targetDir, backup, force, verbose, []opt{
			{"-a", optFlag}, {"--archive", optFlag}, {"-r", optFlag}, {"-R", optFlag}, {"--recursive", optFlag},
			{"-n", optFlag}, {"--no-clobber", optFlag}, {"-p", optFlag}, {"--preserve", optMaybe},
			{"--no-preserve", optValue}, {"-P", optFlag}, {"--no-dereference", optFlag}, {"-L", optFlag},
			{"--dereference", optFlag}, {"-H", optFlag}, {"-l", optFlag}, {"--link", optFlag}, {"-s", optFlag},
			{"--symbolic-link", optFlag}, {"-u", optFlag}, {"--update", optMaybe}, {"-x", optFlag},
			{"--one-file-system", optFlag}, {"-d", optFlag}, {"--parents", optFlag}, {"--sparse", optValue},
			{"--reflink", optMaybe}, {"--remove-destination", optFlag}, {"--strip-trailing-slashes", optFlag},
			{"--attributes-only", optFlag}, {"--debug", optFlag},
		}), text), targets: lastOperand, dirOpts: []string{"-t", "--target-directory"}, intoDir: true},
		"install": {spec: spec(join(targetDir, backup, verbose, []opt{
			{"-m", optValue}, {"--mode", optValue}, {"-o", optValue}, {"--owner", optValue}, {"-g", optValue},
			{"--group", optValue}, {"-c", optFlag}, {"-C", optFlag}, {"--compare", optFlag}, {"-D", optFlag},
			{"-p", optFlag}, {"--preserve-timestamps", optFlag}, {"-s", optFlag}, {"--strip", optFlag},
			{"--strip-program", optValue},
		}), text), targets: lastOperand, dirOpts: []string{"-t", "--target-directory"}, intoDir: true},
		"mv": {spec: spec(join(targetDir, backup, force, verbose, []opt{
			{"-n", optFlag}, {"--no-clobber", optFlag}, {"-u", optFlag}, {"--update", optMaybe},
			{"--strip-trailing-slashes", optFlag}, {"--exchange", optFlag}, {"--no-copy", optFlag},
			{"--debug", optFlag},
		}), text), dirOpts: []string{"-t", "--target-directory"}, intoDir: true},
		// ln makes a second name through which the file is written:
		// every operand counts.
		"ln": {spec: spec(join(targetDir, backup, force, verbose, []opt{
			{"-s", optFlag}, {"--symbolic", optFlag}, {"-n", optFlag}, {"--no-dereference", optFlag},
			{"-r", optFlag}, {"--relative", optFlag}, {"-L", optFlag}, {"--logical", optFlag}, {"-P", optFlag},
			{"--physical", optFlag}, {"-d", optFlag}, {"-F", optFlag}, {"--directory", optFlag},
		}), text), dirOpts: []string{"-t", "--target-directory"}, intoDir: true},
	}
})

// writeTargets records the files the command name writes with args.
// open says arguments arrive at run time.
func (a *analysis) writeTargets(name string, args []Word, open bool) {
	switch name {
	case "dd":
		a.ddTargets(args, open)
		return
	case "sed":
		a.sedTargets(args, open)
		return
	case "find":
		a.findTargets(args)
		return
	}
	wr, ok := writers()[name]
	if !ok {
		return
	}
	if open {
		a.unknownWrite("%s gets the files it writes at run time", name)
		return
	}
	p, why := a.parseArgs(name, wr.spec, args)
	if why != "" {
		a.unknownWrite("%s writes files the classifier cannot tell: %s", name, why)
		return
	}
	if p.dynamic > 0 {
		a.unknownWrite("%s writes files only known at run time", name)
		return
	}
	dirs := p.values(wr.dirOpts...)
	operands := p.operands
	var sources, dests []string
	switch n := len(operands); {
	case len(dirs) > 0:
		sources, dests = operands, dirs
	case n > 1 && (wr.targets == lastOperand || wr.intoDir):
		sources, dests = operands[:n-1], operands[n-1:]
	case n == 1 && wr.intoDir:
		// ln -s TARGET: the link is made here, named as the target.
		sources, dests = operands, []string{"."}
	default:
		sources = operands
	}
	if wr.targets == allOperands {
		for _, s := range sources {
			a.wrote(s)
		}
	}
	for _, d := range dests {
		a.wrote(d)
		// The sources land inside d when it is a directory: named as
		// one (-t, a trailing slash, several sources), or one now.
		if wr.intoDir && (len(dirs) > 0 || len(sources) > 1 || strings.HasSuffix(d, "/") || a.isDir(d)) {
			for _, s := range sources {
				a.wrote(filepath.Join(d, filepath.Base(s)))
			}
		}
	}
}

// isDir reports whether name is a directory from any of the command's
// directories.
func (a *analysis) isDir(name string) bool {
	for _, cwd := range a.cwds {
		if fi, err := os.Stat(realPath(cwd, name)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// ddTargets records dd's of= file.
func (a *analysis) ddTargets(args []Word, open bool) {
	if open {
		a.unknownWrite("dd gets its operands at run time")
		return
	}
	for _, w := range args {
		if !w.literal {
			if !w.expands && !strings.HasPrefix(w.glob, "of=") {
				continue
			}
			a.unknownWrite("dd operand %s is only known at run time", w.src)
			continue
		}
		if f, ok := strings.CutPrefix(w.value, "of="); ok {
			a.wrote(f)
		}
	}
}

// sedSpecWrites are sed's options, -i among them, for finding the files
// sed -i edits in place.
var sedSpecWrites = sync.OnceValue(func() *cmdSpec {
	return spec([]opt{
		{"-n", optFlag}, {"--quiet", optFlag}, {"--silent", optFlag}, {"-E", optFlag}, {"-r", optFlag},
		{"--regexp-extended", optFlag}, {"-s", optFlag}, {"--separate", optFlag}, {"-u", optFlag},
		{"--unbuffered", optFlag}, {"-z", optFlag}, {"--null-data", optFlag}, {"--posix", optFlag},
		{"--debug", optFlag}, {"--sandbox", optFlag}, {"--follow-symlinks", optFlag}, {"-b", optFlag},
		{"--binary", optFlag}, {"-l", optValue}, {"--line-length", optValue}, {"-e", optValue},
		{"--expression", optValue}, {"-f", optValue}, {"--file", optValue}, {"-i", optMaybe},
		{"--in-place", optMaybe},
	}, text)
})

// sedTargets records the files sed -i edits. A script that is not only
// stream editing (w, W) writes files it names itself: unknown.
func (a *analysis) sedTargets(args []Word, open bool) {
	p, why := a.parseArgs("sed", sedSpecWrites(), args)
	if why != "" {
		a.unknownWrite("sed writes files the classifier cannot tell: %s", why)
		return
	}
	files := p.operands
	scripts := p.values("-e", "--expression")
	if len(scripts) == 0 && !p.has("-f", "--file") && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	if p.has("-f", "--file") {
		a.unknownWrite("sed reads its script from a file, which may write files")
	}
	for _, sc := range scripts {
		if sedReadOnly(sc) != "" {
			a.unknownWrite("the sed script %q may write files", sc)
		}
	}
	if !p.has("-i", "--in-place") {
		return
	}
	if open || p.dynamic > 0 {
		a.unknownWrite("sed -i edits files only known at run time")
		return
	}
	for _, f := range files {
		a.wrote(f)
	}
}

// findTargets records what find's actions write: -fprint FILE and the
// like, and -delete, whose files are only known at run time.
func (a *analysis) findTargets(args []Word) {
	for i, w := range args {
		if !w.literal {
			continue
		}
		switch w.value {
		case "-delete":
			a.unknownWrite("find -delete removes files only known at run time")
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) && args[i+1].literal {
				a.wrote(args[i+1].value)
			} else {
				a.unknownWrite("find %s writes a file only known at run time", w.value)
			}
		}
	}
}
