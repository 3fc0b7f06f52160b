// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "parley",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "parley", targets: ["App"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // RS256 for service-account JWTs (application default credentials); never hand-rolled.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // C libraries through module maps and small shim headers.
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw"),
        .systemLibrary(name: "CPulse", path: "Sources/CPulse"),
        // A C interface to WebRTC's echo canceller, noise suppression and gain control (Debian
        // libwebrtc-audio-processing-dev 0.3, C++), for PulseAudio. The flags are `pkg-config --cflags --libs
        // webrtc-audio-processing`, given here because SwiftPM refuses a .pc file's -D flags.
        .target(
            name: "CAudioProcessing",
            cxxSettings: [
                .define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD"),
                .unsafeFlags(["-isystem", "/usr/include/webrtc_audio_processing"]),
            ],
            linkerSettings: [.linkedLibrary("webrtc_audio_processing")]
        ),

        // One monotonic time base for every module (and a `Duration` conversion).
        .target(name: "ParleyTime"),
        // The lock every module uses: `Synchronization.Mutex` that ThreadSanitizer understands.
        .target(name: "ParleyLock"),
        // Clean-signal process spawning, shared by the tools that run commands and the test harness.
        .target(name: "ParleySpawn", dependencies: ["ParleyTime"]),
        // ffmpeg run to completion (images, clips, test pictures), spawned through ParleySpawn.
        .target(name: "FFmpeg", dependencies: ["ParleySpawn"]),

        // The Gemini Live protocol: messages, transport, session. No audio, no terminal.
        .target(
            name: "Live",
            dependencies: [
                "ParleyTime", "ParleyLock",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Credentials that change over a conversation: application default credentials as google-auth resolves
        // them (service account, authorized user, metadata server, gcloud) and ephemeral-token commands.
        .target(
            name: "GoogleAuth",
            dependencies: [
                "Live", "ParleyTime", "ParleyLock", "ParleySpawn",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // A local server speaking the server side of the protocol.
        .target(
            name: "LiveSimulator",
            dependencies: [
                "Live", "ParleyTime", "ParleyLock", "FFmpeg",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Audio I/O over PulseAudio; the only module that calls pa_*.
        .target(name: "PulseAudio", dependencies: ["CPulse", "CAudioProcessing", "ParleyTime", "ParleyLock"]),
        // The terminal; the only module that calls ncurses.
        .target(name: "TUI", dependencies: ["CNcursesw", "ParleyTime", .product(name: "TOMLKit", package: "TOMLKit")]),
        // The conversation's rules as values: the state, the reducer, effects as data, events. No I/O: the
        // runtime that performs the effects is App's.
        .target(name: "Conversation", dependencies: ["Live", "TUI", "ParleyTime"]),
        // The parley executable.
        .executableTarget(
            name: "App",
            dependencies: [
                "Conversation", "Live", "LiveSimulator", "GoogleAuth", "PulseAudio", "TUI", "ParleyTime", "ParleyLock", "ParleySpawn", "FFmpeg",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "SystemPackage", package: "swift-system"),
                // `parley doctor` checks TCP and TLS on their own, before the WebSocket upgrade.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        // The conversation on canned content, through the real reducer and views, for the tmux smoke test.
        .executableTarget(name: "TUIDemo", dependencies: ["Conversation", "TUI", "Live", "ParleyTime"]),

        // Test support, written once: a clock tests move by hand, the tmux/spawn harness, `parley simulate` as a
        // child process.
        .target(name: "ParleyTesting", dependencies: ["ParleyTime", "ParleyLock", "ParleySpawn"], path: "Tests/ParleyTesting"),
        // A transport that delivers frames in process, and test audio for the protocol and the simulator.
        .target(name: "LiveTesting", dependencies: ["Live"], path: "Tests/LiveTesting"),
        // Audio sources and sinks without devices, test signals, and the echo room (a synthetic room for the
        // canceller).
        .target(name: "PulseAudioTesting", dependencies: ["PulseAudio", "ParleyTime", "ParleyLock"], path: "Tests/PulseAudioTesting"),
        // Saved conversations and a credential-free environment for the app's tests, unit and integration.
        .target(name: "AppTesting", dependencies: ["App", "Conversation", "ParleyTesting"], path: "Tests/AppTesting"),
        // Loopback stand-ins for Google's OAuth token endpoint and the GCE metadata server, for auth tests.
        .target(
            name: "AuthTesting",
            dependencies: [
                "ParleyLock",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/AuthTesting"
        ),

        // Unit tests: values, views and in-process fakes only. None spawns a process, opens a socket or needs a
        // sound server, so `scripts/test.sh --quick` runs exactly these targets (listed there).
        .testTarget(name: "LiveTests", dependencies: ["Live", "LiveTesting", "ParleyTime", "ParleyLock", "ParleyTesting"]),
        .testTarget(name: "LiveSimulatorTests", dependencies: ["LiveSimulator", "Live", "LiveTesting"]),
        .testTarget(name: "PulseAudioTests", dependencies: ["PulseAudio", "PulseAudioTesting", "ParleyTesting", "ParleyTime"]),
        .testTarget(name: "TUITests", dependencies: ["TUI", "Live", "ParleyTime", "ParleyTesting"]),
        // The conversation's rules without the program: tests that need nothing of App (no `Config`).
        .testTarget(name: "ConversationTests", dependencies: ["Conversation", "Live", "TUI"]),
        .testTarget(name: "AppTests", dependencies: ["App", "AppTesting", "Conversation", "Live", "LiveSimulator", "TUI", "PulseAudio", "PulseAudioTesting", "ParleyTime", "ParleyLock", "ParleyTesting"]),

        // Integration tests: loopback servers, the simulator over sockets, sound servers, tmux, `parley` and other
        // child processes.
        .testTarget(
            name: "LiveIntegrationTests",
            dependencies: ["Live", "LiveSimulator", "LiveTesting", "GoogleAuth", "AuthTesting", "ParleyTime", "ParleyLock", "ParleyTesting", .product(name: "WSClient", package: "swift-websocket"), .product(name: "NIOCore", package: "swift-nio")]
        ),
        .testTarget(
            name: "LiveSimulatorIntegrationTests",
            dependencies: ["LiveSimulator", "Live", "LiveTesting", "FFmpeg", .product(name: "WSClient", package: "swift-websocket")]
        ),
        .testTarget(
            name: "GoogleAuthIntegrationTests",
            dependencies: ["GoogleAuth", "AuthTesting", "Live", "LiveSimulator", "ParleyTime", "ParleyTesting"]
        ),
        .testTarget(name: "PulseAudioIntegrationTests", dependencies: ["PulseAudio", "PulseAudioTesting", "ParleyTesting", "ParleyTime"]),
        .testTarget(name: "TUIIntegrationTests", dependencies: ["TUI", "ParleyTesting"]),
        .testTarget(name: "AppIntegrationTests", dependencies: ["App", "AppTesting", "Conversation", "FFmpeg", "Live", "LiveSimulator", "AuthTesting", "GoogleAuth", "TUI", "PulseAudio", "PulseAudioTesting", "ParleyTime", "ParleyLock", "ParleyTesting", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx14
)
