package minidyn

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Credentials files: the key a served engine accepts, in the AWS shared
// credentials format (the [default] profile's aws_access_key_id and
// aws_secret_access_key), so any AWS client reads it
// (AWS_SHARED_CREDENTIALS_FILE). The secret never goes in argv: only in
// such a file, readable by its owner alone, or the environment.

// ReadCredentials reads the key id and secret of the [default] profile
// of the credentials file path, which must be a regular file of the
// user's own that no one else may read or write.
func ReadCredentials(path string) (id, secret string, err error) {
	return ReadProfile(path, "default")
}

// ReadProfile reads the key id and secret of a profile of the
// credentials file path, checked as ReadCredentials checks it.
func ReadProfile(path, profile string) (id, secret string, err error) {
	if err := checkPrivate(path); err != nil {
		return "", "", fmt.Errorf("credentials file %s: %w", path, err)
	}
	f, err := openNoFollow(path)
	if err != nil {
		return "", "", fmt.Errorf("credentials file: %w", err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	section := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case strings.HasPrefix(line, "["):
			section = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return "", "", fmt.Errorf("credentials file %s, line %d: expected key = value, [profile] or a # comment", path, n)
		}
		if section != profile {
			continue
		}
		switch strings.TrimSpace(k) {
		case "aws_access_key_id":
			id = strings.TrimSpace(v)
		case "aws_secret_access_key":
			secret = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", fmt.Errorf("credentials file %s: %w", path, err)
	}
	if id == "" || secret == "" {
		return "", "", fmt.Errorf("credentials file %s: expected aws_access_key_id and aws_secret_access_key under [%s]", path, profile)
	}
	return id, secret, nil
}

// CredentialsText is a credentials file holding id and secret, with a
// first line saying what they are for.
func CredentialsText(comment, id, secret string, more ...Profile) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", comment, id, secret)
	for _, p := range more {
		fmt.Fprintf(&b, "[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\n", p.Name, p.ID, p.Secret)
	}
	return b.Bytes()
}

// Profile is a credentials file's profile other than [default].
type Profile struct{ Name, ID, Secret string }

// secretAlphabet is what NewSecret draws from (AWS's secrets: base64's).
const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// NewSecret returns a random secret access key (40 characters, 240 bits
// of crypto/rand, as long as AWS's).
func NewSecret() string {
	b := make([]byte, 40)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = secretAlphabet[int(b[i])%len(secretAlphabet)]
	}
	return string(b)
}

// ErrNotPrivate: a credentials file another user could read or write.
var ErrNotPrivate = errors.New("not private to this user")

func checkPrivate(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: not a regular file", ErrNotPrivate)
	}
	return checkPrivateMode(fi)
}
