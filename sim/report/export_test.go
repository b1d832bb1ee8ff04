package report

// Test hooks: the axis helpers, for the external tests.
var (
	NiceTicks = niceTicks
	LogTicks  = logTicks
	TextWidth = textWidth
)
