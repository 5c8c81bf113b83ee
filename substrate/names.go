package substrate

import "fmt"

// MaxTopicNameLen is Kafka's limit on topic name length.
const MaxTopicNameLen = 249

// ValidateTopicName applies Kafka's rule for legal topic names: 1 to 249 characters from
// [a-zA-Z0-9._-], and neither "." nor "..". Both implementations use it, so an illegal name fails
// the same way on the model and on a broker.
func ValidateTopicName(name string) error {
	if name == "" || len(name) > MaxTopicNameLen || name == "." || name == ".." {
		return fmt.Errorf("%w: topic name %q (need 1-%d characters, not \".\" or \"..\")",
			ErrInvalidArgument, name, MaxTopicNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		legal := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == '-'
		if !legal {
			return fmt.Errorf("%w: topic name %q has illegal character %q", ErrInvalidArgument, name, c)
		}
	}
	return nil
}
