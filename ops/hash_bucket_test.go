package ops

import "testing"

// TestSipHash24PaperVector: the SipHash paper's test vector (key 00..0f,
// message 00..0e).
func TestSipHash24PaperVector(t *testing.T) {
	msg := make([]byte, 15)
	for i := range msg {
		msg[i] = byte(i)
	}
	if h := sipHash24(0x0706050403020100, 0x0f0e0d0c0b0a0908, msg); h != 0xa129ca6149be45e5 {
		t.Errorf("SipHash-2-4 = %#x, want 0xa129ca6149be45e5", h)
	}
}
