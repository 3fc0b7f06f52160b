/// A semantic role a view gives to a piece of text; a `Theme` maps each role to colours and attributes.
public enum Role: String, CaseIterable, Sendable, Hashable {
    case normal
    case userText, userInterim, modelText, modelInterim, systemText, errorText, interruptedMark
    case speakerLabel, newMessagesMarker
    case meterLabel, meterLow, meterMid, meterHot, meterPeak, meterClip, meterEmpty, talking
    case stateConnecting, stateLive, stateResuming, stateFailed, stateOffline
    case header, title, border, dim
    case menu, menuSelected, menuCurrent, menuDim, selection
    case toolPending, toolRunning, toolOk, toolError, toolCancelled, toolDenied, toolName, toolArgs
    case input, inputCursor, statusBar, statusKey, banner, demoMarker
}
