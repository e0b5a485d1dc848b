package patterns

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// Which keyplan wrote what: its module version (from the build info) and
// the formats of the files it reads and writes. docs/compatibility.md
// says what each format holds and how long a format is read.

// LockFormat is the lock file format keyplan writes: format 2 records the
// keyplan version that wrote the lock and a digest of its content.
const LockFormat = 2

// lockFormatsRead are the lock formats keyplan reads, oldest first:
// format 1 (no version, no digest: checked by re-derivation) and 2.
var lockFormatsRead = []int{1, 2}

// LockFormats returns the lock formats this keyplan reads, oldest first,
// and the one it writes.
func LockFormats() (read []int, write int) {
	return append([]int(nil), lockFormatsRead...), LockFormat
}

// readsLockFormat reports whether this keyplan reads lock format f.
func readsLockFormat(f int) bool { return slices.Contains(lockFormatsRead, f) }

// devel is the version of a keyplan built from a checkout (the build
// info's own word for it).
const devel = "(devel)"

// KeyplanVersion is the version of the keyplan module this program was
// built with, from its build info: the main module's version when keyplan
// is the program (go install …@v1.2.0: "v1.2.0"), the required one when
// keyplan is a dependency (go tool keyplan, a CDK app, an application
// using the runtime), a replacement's version when it is replaced, and
// "(devel)" for a build from a checkout (or a replacement by a
// directory). A lock records it (Lock.Keyplan).
func KeyplanVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devel
	}
	return moduleVersion(bi)
}

// moduleVersion is keyplan's version in a build info.
func moduleVersion(bi *debug.BuildInfo) string {
	mod := &bi.Main
	if mod.Path != Module {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == Module {
				mod = d
				break
			}
		}
	}
	if mod == nil {
		return devel
	}
	if mod.Replace != nil {
		mod = mod.Replace
	}
	if mod.Version == "" {
		return devel
	}
	return mod.Version
}

// VersionText is what keyplan version prints: keyplan's version (with
// the commit for a build from a checkout, when the build recorded it),
// the lock formats it reads and the one it writes, and the design format.
func VersionText() string {
	v := KeyplanVersion()
	if bi, ok := debug.ReadBuildInfo(); ok && v == devel {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				v += "+dirty"
			}
		}
	}
	read, write := LockFormats()
	formats := make([]string, len(read))
	for i, f := range read {
		formats[i] = fmt.Sprint(f)
	}
	return fmt.Sprintf("keyplan %s\nlock formats read: %s\nlock format written: %d\ndesign format: %d\n",
		v, strings.Join(formats, ", "), write, DesignFormat)
}
