// Package atomicfile replaces a file in one step, for everything keyplan
// writes beside a user's model: the lock (patterns.Lock.WriteFile), the
// generated code (patterns/gen) and the migration checkpoint.
//
// A reader sees the old file or the new one, never a part of either; a
// crash or an error leaves the old file whole. The new content goes to a
// temporary file made by os.CreateTemp in the target's directory (a fresh
// random name, created exclusively: a file or a symlink another user
// planted at a predictable name such as FILE.tmp is never opened,
// followed or reused), is synced, and is renamed over the target (a
// rename replaces a symlink at the target; it does not write through it).
//
// It imports only the standard library, so the core (package patterns)
// may use it.
package atomicfile
