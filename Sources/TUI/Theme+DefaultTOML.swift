extension Theme {
    /// The text of `themes/default.toml`.
    static let defaultTOML = #"""
# parley theme "default": for dark terminals.
# Each role takes fg / bg (a name, 0-255, "#rrggbb" or "default") and attrs
# (bold, dim, underline, reverse, italic). Roles left out look like `default`.
name = "default"

[roles]
normal            = { fg = "default" }
userText          = { fg = 117 }
userInterim       = { fg = 74, attrs = ["italic"] }
modelText         = { fg = 253 }
modelInterim      = { fg = 246, attrs = ["italic"] }
systemText        = { fg = 179 }
errorText         = { fg = 203, attrs = ["bold"] }
interruptedMark   = { fg = 208, attrs = ["bold"] }
speakerLabel      = { fg = 244, attrs = ["bold"] }
newMessagesMarker = { fg = 16, bg = 220, attrs = ["bold"] }
meterLabel        = { fg = 250 }
meterLow          = { fg = 70 }
meterMid          = { fg = 178 }
meterHot          = { fg = 202 }
meterPeak         = { fg = 231, attrs = ["bold"] }
meterClip         = { fg = 231, bg = 160, attrs = ["bold"] }
meterEmpty        = { fg = 238 }
talking           = { fg = 196, attrs = ["bold"] }
stateConnecting   = { fg = 220 }
stateLive         = { fg = 46, attrs = ["bold"] }
stateResuming     = { fg = 214, attrs = ["bold"] }
stateFailed       = { fg = 196, attrs = ["bold"] }
stateOffline      = { fg = 244 }
header            = { fg = 250 }
title             = { fg = 81, attrs = ["bold"] }
border            = { fg = 240 }
dim               = { fg = 244 }
menu              = { fg = 252, bg = 236 }
menuSelected      = { fg = 16, bg = 81, attrs = ["bold"] }
menuCurrent       = { fg = 220, bg = 236, attrs = ["bold"] }
menuDim           = { fg = 245, bg = 236 }
selection         = { fg = 16, bg = 110 }
toolPending       = { fg = 244 }
toolRunning       = { fg = 75, attrs = ["bold"] }
toolOk            = { fg = 71 }
toolError         = { fg = 203, attrs = ["bold"] }
toolCancelled     = { fg = 180 }
toolDenied        = { fg = 168 }
toolName          = { fg = 252, attrs = ["bold"] }
toolArgs          = { fg = 246 }
input             = { fg = "default" }
inputCursor       = { attrs = ["reverse"] }
statusBar         = { fg = 252, bg = 238 }
statusKey         = { fg = 117, bg = 238, attrs = ["bold"] }
banner            = { fg = 16, bg = 214, attrs = ["bold"] }
demoMarker        = { fg = 16, bg = 213, attrs = ["bold"] }
"""#
}
