package engine

import (
	"context"
	"crypto/rand"
	"net"
	"net/url"
	"os"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/engine/minidyn"
)

// The in-process engine listens on a loopback port, which every user of
// the machine can reach. keyplan starts it accepting one access key, a
// key id and a secret random per run (NewAccessKeyID, NewSecret), and it
// verifies every request's SigV4 signature with that secret: another
// local user's requests are refused (UnrecognizedClientException, or
// InvalidSignatureException for the right key id with a wrong secret).
// The secret never goes in argv: it stays in this process, or, for
// keyplan local, in a credentials file only its user can read
// (LocalKeyFile), and another process gets it in its environment
// (Conn.Environ). dynalite and DynamoDB Local check no key: a run on
// them is open to the machine's users.

// accessKeyAlphabet is what an access key id is made of (AWS's are upper
// case letters and digits).
const accessKeyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// accessKeyPrefix starts the keys keyplan makes, so a log shows whose
// key a request carried.
const accessKeyPrefix = "KPL"

// placeholderSecret is the secret signed with for engines that check
// none (dynalite, DynamoDB Local, an endpoint without AWS credentials).
const placeholderSecret = "keyplan"

// NewSecret returns a random secret access key (minidyn.NewSecret).
func NewSecret() string { return minidyn.NewSecret() }

// NewAccessKeyID returns a random access key id (20 characters, 85 bits
// of crypto/rand).
func NewAccessKeyID() string {
	b := make([]byte, 20-len(accessKeyPrefix))
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = accessKeyAlphabet[int(b[i])%len(accessKeyAlphabet)]
	}
	return accessKeyPrefix + string(b)
}

// known is what this process knows of the engine at an endpoint: the
// access key (id and secret) it accepts (an engine this process
// started), and whether it has TransactWriteItems (once probed).
type known struct {
	key, secret string
	// roKey and roSecret are its read-only key (keyplan local
	// --read-only-key), "" when it has none.
	roKey, roSecret string
	// local: a keyplan local's (ServeLocal, or its key file), whose
	// read-only key AWS_PROFILE=read-only picks.
	local  bool
	probed bool
	native bool
}

var (
	registryMu sync.Mutex
	registry   = map[string]known{}
)

// endpointKey is an endpoint as the registry names it: scheme, host and
// port, lower case ("http://127.0.0.1:8000").
func endpointKey(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return endpoint
	}
	return u.Scheme + "://" + u.Host
}

func lookup(endpoint string) (known, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	k, ok := registry[endpointKey(endpoint)]
	return k, ok
}

// set makes k what this process knows of the engine at endpoint.
func set(endpoint string, k known) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[endpointKey(endpoint)] = k
}

// probed records an engine's probe, if the engine is still known.
func probed(endpoint string, native bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if k, ok := registry[endpointKey(endpoint)]; ok {
		k.probed, k.native = true, native
		registry[endpointKey(endpoint)] = k
	}
}

func forget(endpoint string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	delete(registry, endpointKey(endpoint))
}

// Share makes alias (a proxy in front of the engine at endpoint, such as
// internal/testkit/faults') known as that engine: Client(alias) signs with the
// engine's key, and Transactions(alias) takes the engine's probe instead
// of probing through the proxy (a fault it injects would misreport the
// engine). The returned function undoes it.
func Share(alias, endpoint string) func() {
	k, _ := lookup(endpoint)
	if !k.probed { // probed here, directly, never through the proxy
		k.native, k.probed = dynalite.SupportsTransactions(context.Background(), Client(endpoint, 0)), true
	}
	set(alias, k)
	return func() { forget(alias) }
}

// AccessKeyID is the key id Client signs its requests to endpoint with,
// and where it comes from:
//   - the run's key of an engine this process started (Start, Connect), or
//     shares (Share);
//   - else, for a loopback endpoint, the key of the keyplan local serving
//     on its port (written, for its user only, where LocalKeyFile says);
//   - either's read-only key when $AWS_PROFILE is ReadOnlyProfile (an
//     engine without one refuses what is signed then);
//   - else $AWS_ACCESS_KEY_ID (real DynamoDB, an engine of another kind);
//   - else "": a placeholder (engines that check no key accept any).
func AccessKeyID(endpoint string) string {
	id, _ := keyFor(endpoint)
	return id
}

// keyFor is the key id and secret Client signs with (AccessKeyID), ""
// when it signs with $AWS_ACCESS_KEY_ID or a placeholder.
func keyFor(endpoint string) (id, secret string) {
	if k, ok := engineKey(endpoint); ok {
		return k.key, k.secret
	}
	return os.Getenv("AWS_ACCESS_KEY_ID"), ""
}

// noReadOnlyKey is the key id signed with under AWS_PROFILE=read-only
// for an engine that has no read-only key: it refuses it
// (UnrecognizedClientException), rather than take the full key for it.
const noReadOnlyKey = "NO_READ_ONLY_KEY_ON_THIS_ENGINE"

// engineKey is the key of the engine at endpoint this process started,
// or of the keyplan local on its port (AccessKeyID); for a keyplan local
// with AWS_PROFILE=read-only, its read-only key (noReadOnlyKey when it
// has none). false: neither.
func engineKey(endpoint string) (known, bool) {
	k, ok := lookup(endpoint)
	if !ok || k.key == "" {
		if k, ok = localKeys(endpoint); !ok {
			return known{}, false
		}
	}
	if !k.local || os.Getenv("AWS_PROFILE") != ReadOnlyProfile {
		return k, true
	}
	if k.roKey == "" {
		return known{key: noReadOnlyKey}, true
	}
	return known{key: k.roKey, secret: k.roSecret}, true
}

// credentialsFor are the credentials Client signs with (AccessKeyID).
func credentialsFor(endpoint string) aws.CredentialsProvider {
	if k, ok := engineKey(endpoint); ok {
		return credentials.NewStaticCredentialsProvider(k.key, orPlaceholder(k.secret), "")
	}
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" {
		return credentials.NewStaticCredentialsProvider("keyplan", placeholderSecret, "")
	}
	return credentials.NewStaticCredentialsProvider(id, orPlaceholder(secret), os.Getenv("AWS_SESSION_TOKEN"))
}

func orPlaceholder(secret string) string {
	if secret == "" {
		return placeholderSecret
	}
	return secret
}

// loopbackPort is the port of a loopback endpoint ("" for any other).
func loopbackPort(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" {
		return ""
	}
	host, port := u.Hostname(), u.Port()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return ""
	}
	return port
}

// Transactions is c, a client of the engine at endpoint, with
// TransactWriteItems emulated where that engine lacks it (dynalite;
// dynalite.SupportsTransactions). An engine this process started is
// probed once, and a proxy shared with one (Share) takes its answer;
// any other endpoint is probed each time (what answers there may change).
func Transactions(ctx context.Context, endpoint string, c *dynamodb.Client) *dynalite.Transactions {
	k, ok := lookup(endpoint)
	switch {
	case ok && k.probed && k.native:
		return dynalite.Native(c)
	case ok && k.probed:
		return dynalite.EmulateTransactions(c)
	}
	t := dynalite.Probe(ctx, c)
	if ok {
		probed(endpoint, !t.Emulated())
	}
	return t
}
