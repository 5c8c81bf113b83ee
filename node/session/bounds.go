package session

import (
	"errors"
	"fmt"

	"github.com/parsleysim/parsleysim/node"
)

// ErrTokenTooLarge is wrapped by every error Validate and DecodeBounded return for a token that
// breaks a bound. It is distinct from a *node.DecodeError: the bytes were well formed.
var ErrTokenTooLarge = errors.New("session: token exceeds its bound")

// Validate reports whether token names at most maxEntries channels and encodes in at most
// maxEncodedBytes bytes; the error names the measured size and the bound it broke.
//
// A write tier bounds every inbound token before stamping it: a token is untrusted input even when
// this application minted it. The other hygiene checks of SPEC §5.3 are coverage checks: a past of
// known-live upper bounds per channel covers a token exactly when the token names only known
// channels at positions no higher than those bounds. Validate panics on a negative bound, a
// programming error.
func Validate(token CausalPast, maxEntries, maxEncodedBytes int) error {
	if maxEntries < 0 || maxEncodedBytes < 0 {
		panic(fmt.Sprintf("session: negative token bound (entries %d, bytes %d)", maxEntries, maxEncodedBytes))
	}
	if n := token.Size(); n > maxEntries {
		return fmt.Errorf("%w: names %d channels, at most %d allowed", ErrTokenTooLarge, n, maxEntries)
	}
	if n := node.EncodedLen(*token.frontier()); n > maxEncodedBytes {
		return fmt.Errorf("%w: encodes in %d bytes, at most %d allowed", ErrTokenTooLarge, n, maxEncodedBytes)
	}
	return nil
}

// DecodeBounded decodes an inbound token as Decode does, refusing it before decoding when the
// bytes are longer than maxEncodedBytes and after decoding when it names more than maxEntries
// channels, so an oversized token costs no more than its bound to reject.
func DecodeBounded(encoded []byte, maxEntries, maxEncodedBytes int) (CausalPast, error) {
	if maxEntries < 0 || maxEncodedBytes < 0 {
		panic(fmt.Sprintf("session: negative token bound (entries %d, bytes %d)", maxEntries, maxEncodedBytes))
	}
	if len(encoded) > maxEncodedBytes {
		return None(), fmt.Errorf("%w: %d encoded bytes, at most %d allowed", ErrTokenTooLarge, len(encoded), maxEncodedBytes)
	}
	token, err := Decode(encoded)
	if err != nil {
		return None(), err
	}
	if err := Validate(token, maxEntries, maxEncodedBytes); err != nil {
		return None(), err
	}
	return token, nil
}
