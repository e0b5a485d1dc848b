package usercache

import (
	"fmt"
	"os"
	"path/filepath"
)

// Env overrides the cache directory (default: os.UserCacheDir()/keyplan).
const Env = "KEYPLAN_CACHE"

// Dir is $KEYPLAN_CACHE, else os.UserCacheDir()/keyplan. It is not
// created here.
func Dir() (string, error) {
	if d := os.Getenv(Env); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (%v); set %s", err, Env)
	}
	return filepath.Join(c, "keyplan"), nil
}
