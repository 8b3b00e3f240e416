package layers

import "fmt"

// WithGroups sets Conv1D's and Conv2D's groups (Keras' groups=, default
// 1): the input channels split into that many groups, each convolved with
// its own filters/groups filters, so the kernel is (..., in/groups,
// filters). groups must divide filters and the input's channels; groups
// equal to the channels is a depthwise convolution, as ConvNeXt's
// Conv2D(filters=dim, groups=dim).
func WithGroups(g int) Option {
	return func(c *config) { c.conv.groups = g; c.mark("groups") }
}

// readGroups is a convolution's groups: 1 unless given; it must be
// positive and divide filters.
func readGroups(c *config, filters int) (int, error) {
	if !c.set["groups"] {
		return 1, nil
	}
	g := c.conv.groups
	if g < 1 {
		return 1, fmt.Errorf("groups must be positive, got %d", g)
	}
	if filters > 0 && filters%g != 0 {
		return g, fmt.Errorf("groups %d must divide filters %d", g, filters)
	}
	return g, nil
}

// checkGroups checks, at Build, that groups divides the input's channels.
func checkGroups(channels, groups int) error {
	if channels <= 0 {
		return fmt.Errorf("the channel dimension must be known")
	}
	if channels%groups != 0 {
		return fmt.Errorf("groups %d must divide the input's %d channels", groups, channels)
	}
	return nil
}
