// Expected frames: reviewed by eye, regenerate with PARLEY_DUMP_FRAMES=DIR (see FrameSnapshotTests).
enum ExpectedFrames {
    static let all: [String: String] = [
        "base_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 Space tap/hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help  q quit
"""#,
        "base_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow









─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 Space tap/hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help
"""#,
        "confirm_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                        ┌─ Confirm ────────────────────────────┐
                                        │ Run shell command?                   │
                                        │                                      │
                                        │ rm -rf /tmp/parley-test && echo done │
                                        │                                      │
                                        │ y yes    N no (default)              │
                                        └──────────────────────────────────────┘
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 y yes  N no
"""#,
        "confirm_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow
                    ┌─ Confirm ────────────────────────────┐
                    │ Run shell command?                   │
                    │                                      │
                    │ rm -rf /tmp/parley-test && echo done │
                    │                                      │
                    │ y yes    N no (default)              │
                    └──────────────────────────────────────┘


─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 y yes  N no
"""#,
        "failedOpenMic_120x40": #"""
 parley  ● failed: 1008 policy violation  voice Puck  gemini-live-2.5-flash
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                                   open mic
you     What's the weather like in Tokyo today?                                │─ tool calls (0) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ none yet
        bay.                                                                   │
      · voice changed to Kore                                                  │
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 voice changed to Kore │ Space (open mic)  v voice  m mode  Tab type  t tools  PgUp scroll  ? help  q quit
"""#,
        "failedOpenMic_80x24": #"""
 parley  ● failed: 1008 policy violation  voice Puck  gemini-live-2.5-flash
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms           open mic
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow













 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 voice changed to Kore │ Space (open mic)  v voice  m mode  Tab type  t tools
"""#,
        "help_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed ┌─ Keys ──────────────────────────────────────────────────────────────────┐yo eve… running   1.5 s
you     東京の天気は？│ Space         talk: hold Space (or tap to start, tap again to stop)     │
gemini  Sure — here is│ v             choose a voice                                            │
                      │ m             switch push-to-talk / open mic                            │
                      │ Tab i         type a message (Enter sends, Esc leaves)                  │
                      │ t             focus the tool-call log (↑↓ select, Enter expand)         │
                      │ ?             this help                                                 │
                      │ L             latency per turn: first words, audio, sound (p50/p95)     │
                      │ $             usage per turn: tokens by modality, cost, context, budget │
                      │ q             quit                                                      │
                      │ Ctrl-C        interrupt the reply; quit when idle                       │
                      │ PgUp          scroll the transcript up a page                           │
                      │ PgDn          scroll the transcript down a page                         │
                      │ Home          go to the start of the conversation                       │
                      │ End           go to the newest line (follow)                            │
                      │ Up            scroll up one line                                        │
                      │ Down          scroll down one line                                      │
                      │ e             export the transcript as Markdown                         │
                      │ T             show or fold the model's thoughts                         │
                      │ r             offline: reconnect now instead of waiting                 │
                      │ c             camera or screen sharing on or off                        │
                      │ Ctrl-O        attach an image to the next turn                          │
                      │ /             search the transcript as you type (Esc leaves)            │
                      │ n             the older search match (wraps)                            │
                      │ N             the newer search match (wraps)                            │
                      │ R             record the conversation's sound, or pause the recording   │
                      │                                                                         │
                      │ Voice menu: ↑↓ move, type to filter, Enter choose, Esc close            │
                      │ Input line: ←→ Ctrl-A/E/K/U/W edit, ↑↓ history, Enter send, Esc leave   │
                      └──────────────────────────────────────────────────────── any key closes ─┘
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 ↑↓ scroll  any other key closes
"""#,
        "help_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
yo┌─ Keys ──────────────────────────────────────────────────────────────────┐
ge│ Space         talk: hold Space (or tap to start, tap again to stop)     │
  │ v             choose a voice                                            │
  │ m             switch push-to-talk / open mic                            │
yo│ Tab i         type a message (Enter sends, Esc leaves)                  │
ge│ t             focus the tool-call log (↑↓ select, Enter expand)         │
  │ ?             this help                                                 │
  │ L             latency per turn: first words, audio, sound (p50/p95)     │
  │ $             usage per turn: tokens by modality, cost, context, budget │
  │ q             quit                                                      │
  │ Ctrl-C        interrupt the reply; quit when idle                       │
  │ PgUp          scroll the transcript up a page                           │
  │ PgDn          scroll the transcript down a page                         │
  │ Home          go to the start of the conversation                       │
  │ End           go to the newest line (follow)                            │
─ │ Up            scroll up one line                                        │───
 g│ Down          scroll down one line                                      │ ms
 r│ e             export the transcript as Markdown                         │
 s│ ↓ 11 more                                                               │5 s
 m└──────────────────────────────── ↑↓ PgUp PgDn scroll · other keys close ─┘
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 ↑↓ scroll  any other key closes
"""#,
        "interrupted_120x40": #"""
 parley  ● resuming in 3 s  voice Puck  gemini-live-2.5-flash                                                     DEMO
 session 2:05  tokens 12,345  latency 420 ms                                                          PTT: hold (kitty)
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow [interrupted]
      ! connection lost (1006): resuming





























 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      muted
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 Space hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help  q quit
"""#,
        "interrupted_80x24": #"""
 parley  ● resuming in 3 s  voice Puck  gemini-live-2.5-flash             DEMO
 session 2:05  tokens 12,345  latency 420 ms                  PTT: hold (kitty)
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow [interrupted]
      ! connection lost (1006): resuming












 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      muted
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 Space hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help
"""#,
        "latencyStats_10x5": #"""

terminal t
need at le
 now 10×5

"""#,
        "latencyStats_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                           ┌─ Latency per turn ────────────────────────────────────────────┐
                           │ stage                      turns     last      p50      p95   │
                           │ first words on screen          3   412 ms   398 ms  1210 ms   │
                           │   end of speech or Enter → the reply's first words are shown  │
                           │ first reply audio received     3   388 ms   371 ms  1190 ms   │
                           │   end of speech or Enter → the first reply audio arrives      │
                           │ first sound played             0        —        —        —   │
                           │   end of speech or Enter → the speaker plays its first sample │
                           │                                                               │
                           │ ms from the end of your turn; p50/p95 over this session       │
                           └───────────────────────────────────────────── L or Esc closes ─┘
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 L/Esc closes
"""#,
        "latencyStats_40x12": #"""
 parley  ● live  voice Puck  gem… DEMO
 ┌─ Latency per turn ─────────────────┐
 │ first words on screen              │
y│   3 turns  p50 398 ms  p95 1210 ms │
g│ first reply audio received         │
 │   3 turns  p50 371 ms  p95 1190 ms │
─│ first sound played                 │─
 │   0 turns  p50 —  p95 —            │
 │                                    │s
 │ ms from the end of your turn; p50… │
 └────────────────── L or Esc closes ─┘…
 L/Esc closes
"""#,
        "latencyStats_60x16": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash    DEMO
 session 2:05  goAway in 42 s                 PTT: tap/hold
y┌─ Latency per turn ─────────────────────────────────────┐
g│ stage                      turns      p50      p95     │t
 │ first words on screen          3   398 ms  1210 ms     │
 │   end of speech or Enter → the reply's first words ar… │
y│ first reply audio received     3   371 ms  1190 ms     │
g│   end of speech or Enter → the first reply audio arri… │
 │ first sound played             0        —        —     │
─│   end of speech or Enter → the speaker plays its firs… │─
 │                                                        │s
 │ ms from the end of your turn; p50/p95 over this sessi… │
 └────────────────────────────────────── L or Esc closes ─┘s
 mic [||||||||||||||||||||  |  ] -12 dB      ● talking
 spk [|||||||||||||   |        ] -30 dB CLIP echo: headphon…
 L/Esc closes
"""#,
        "latencyStats_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you    ┌─ Latency per turn ────────────────────────────────────────────┐
gemini │ stage                      turns     last      p50      p95   │
       │ first words on screen          3   412 ms   398 ms  1210 ms   │
       │   end of speech or Enter → the reply's first words are shown  │
       │ first reply audio received     3   388 ms   371 ms  1190 ms   │
       │   end of speech or Enter → the first reply audio arrives      │
       │ first sound played             0        —        —        —   │
       │   end of speech or Enter → the speaker plays its first sample │
       │                                                               │
       │ ms from the end of your turn; p50/p95 over this session       │
       └───────────────────────────────────────────── L or Esc closes ─┘
─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 L/Esc closes
"""#,
        "message_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                        ┌─ Theme ─────────────────────────────────────────────────────────────┐
                        │ themes/bad.toml:7: role "userText": fg = "purplish" is not a colour │
                        │ name, 0-255 or #rrggbb                                              │
                        └──────────────────────────────────────────────────── any key closes ─┘
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 any key closes
"""#,
        "message_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow


    ┌─ Theme ─────────────────────────────────────────────────────────────┐
    │ themes/bad.toml:7: role "userText": fg = "purplish" is not a colour │
    │ name, 0-255 or #rrggbb                                              │
    └──────────────────────────────────────────────────── any key closes ─┘



─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 any key closes
"""#,
        "minimum_40x12": #"""
 parley  ● live  voice Puck  gem… DEMO
 session 2:05             PTT: tap/hold
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for
        tomorrow
─ tool calls (3) ───────────────────────
 run_shell {"cmd":"ls -… denied
 search {"q":"tokyo eve… running   1.5 s
 mic [||||||||| ] -12 dB      ● talking
 spk [||||| |   ] -30 dB CLIP echo: hea…
 Space tap/hold: talk  v voice  m mode
"""#,
        "pathPrompt_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                          ┌─ Attach an image ────────────────────────────────────────────────┐
                          │ PNG, JPEG, WebP or GIF; it goes with your next turn              │
                          │ @~/shots/diagram.png                                             │
                          └─────────────────── Tab completes · Enter attaches · Esc cancels ─┘
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 Tab complete  Enter attach  Esc cancel
"""#,
        "pathPrompt_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow


      ┌─ Attach an image ────────────────────────────────────────────────┐
      │ PNG, JPEG, WebP or GIF; it goes with your next turn              │
      │ @~/shots/diagram.png                                             │
      └─────────────────── Tab completes · Enter attaches · Esc cancels ─┘



─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 Tab complete  Enter attach  Esc cancel
"""#,
        "recordingDemo_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                         ● REC  DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 Space tap/hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help  q quit
"""#,
        "recordingDemo_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                 ● REC  DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow









─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 Space tap/hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help
"""#,
        "recording_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                               ● REC
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                                   open mic
you     What's the weather like in Tokyo today?                                │─ tool calls (0) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ none yet
        bay.                                                                   │
      · voice changed to Kore                                                  │
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 recording to ~/.local/share/parley/session-2026-11-24-0512.… │ Space (open mic)  v voice  m mode  Tab type  t tools
"""#,
        "recording_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                       ● REC
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms           open mic
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow













 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 recording to ~/.local/share/parley/sess… │ Space (open mic)  v voice  m mode
"""#,
        "searchKept_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 1/2 │ n older  N newer  / search again  Esc done
"""#,
        "searchKept_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow









─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 1/2 │ n older  N newer  / search again  Esc done
"""#,
        "searching_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
/tokyo
 2/2 │ Enter keep  Esc leave  type search as you type
"""#,
        "searching_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow








─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
/tokyo
 2/2 │ Enter keep  Esc leave  type search as you type
"""#,
        "tooSmall_39x11": #"""




          terminal too small:
          need at least 40×12
               now 39×11




"""#,
        "tooSmall_80x11": #"""




                              terminal too small:
                              need at least 40×12
                                   now 80×11




"""#,
        "toolsInputBanner_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
 no audio: PulseAudio is not running — text only
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ↑↓ Enter Esc ──────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │›get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │   args {"city":"Tokyo"}
      · voice changed to Kore                                                  │ result {"temp":21}
you     東京の天気は？ 😀 ありがとう                                           │ run_shell {"cmd":"ls -… denied
gemini  Sure — here is the forecast for tomorrow                               │ search {"q":"tokyo eve… running   1.5 s
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
› hello 世界
 Enter send  Esc leave  Ctrl-U clear  ←→ move
"""#,
        "toolsInputBanner_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
 no audio: PulseAudio is not running — text only
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow

─ tool calls (3) ↑↓ Enter Esc ──────────────────────────────────────────────────
›get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
   args {"city":"Tokyo"}
 result {"temp":21}
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s




 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
› hello 世界
 Enter send  Esc leave  Ctrl-U clear  ←→ move
"""#,
        "vision_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 camera /dev/video0 · 12 frames · 13.5 KB/frame  session 2:05  goAway in 42 s  tokens 12,345              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
you     [image] red.png (170 B, 64×48, 260 B JPEG sent)                        │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
                                                                               │red.png 64×48
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 Space tap/hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help  q quit
"""#,
        "vision_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 camera /dev/video0 · 12 frames · 13.5 KB/frame  session 2:05     PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here is the forecast for tomorrow
you     [image] red.png (170 B, 64×48, 260 B JPEG sent)








─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 Space tap/hold: talk  v voice  m mode  Tab type  t tools  PgUp scroll  ? help
"""#,
        "voiceMenuFiltered_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the   │ get_weather (wx) {"cit… ok       420 ms
        bay.                                                                   │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore                                                  │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう                                           │
gemini  Sure — here is the forecast for tomorrow                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                         ┌─ Voice (30) ──────────────────────┐ │
                                         │ filter: al                        │ │
                                         │   Algieba        Smooth           │ │
                                         │   Algenib        Gravelly         │ │
                                         │   Alnilam        Firm             │ │
                                         │   Callirrhoe     Easy-going       │ │
                                         │   Rasalgethi     Informative      │ │
                                         │   Zubenelgenubi  Casual           │ │
                                         │   Sadaltager     Knowledgeable    │ │
                                         └──────── Enter choose · Esc close ─┘ │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 ↑↓ move  type filter  Enter choose  Esc close
"""#,
        "voiceMenuFiltered_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms      PTT: tap/hold
you     What's the weather like in Tokyo today?
gemini  It's sunny in Tokyo, around 21 degrees, with a light breeze from the
        bay.
      · voice changed to Kore
you     東京の天気は？ 😀 ありがとう
gemini  Sure — here i┌─ Voice (30) ──────────────────────┐
                     │ filter: al                        │
                     │   Algieba        Smooth           │
                     │   Algenib        Gravelly         │
                     │   Alnilam        Firm             │
                     │   Callirrhoe     Easy-going       │
                     │   Rasalgethi     Informative      │
                     │   Zubenelgenubi  Casual           │
                     │   Sadaltager     Knowledgeable    │
                     └──────── Enter choose · Esc close ─┘
─ tool calls (3) ───────────────────────────────────────────────────────────────
 get_weather (wx) {"city":"Tokyo"}                               ok       420 ms
 run_shell {"cmd":"ls -la"}                                      denied
 search {"q":"tokyo events"}                                     running   1.5 s
 mic [||||||||||||||||||||||||||||||||   |    ] -12 dB      ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 ↑↓ move  type filter  Enter choose  Esc close
"""#,
        "voiceMenu_120x40": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                                                                DEMO
 session 2:05  goAway in 42 s  tokens 12,345  latency 420 ms                                              PTT: tap/hold
you     What's the weather like in Tokyo today?                                │─ tool calls (3) ───────────────────────
gemini  It's sunny in Tokyo, around 21 de┌─ Voice (30) ──────────────────────┐ │ get_weather (wx) {"cit… ok       420 ms
        bay.                             │ filter: type to filter            │ │ run_shell {"cmd":"ls -… denied
      · voice changed to Kore            │   Zephyr         Bright           │ │ search {"q":"tokyo eve… running   1.5 s
you     東京の天気は？ 😀 ありがとう     │ ● Puck           Upbeat           │ │
gemini  Sure — here is the forecast for t│   Charon         Informative      │ │
                                         │   Kore           Firm             │ │
                                         │   Fenrir         Excitable        │ │
                                         │   Leda           Youthful         │ │
                                         │   Orus           Firm             │ │
                                         │   Aoede          Breezy           │ │
                                         │   Callirrhoe     Easy-going       │ │
                                         │   Autonoe        Bright           │ │
                                         │   Enceladus      Breathy          │ │
                                         │   Iapetus        Clear            │ │
                                         │   Umbriel        Easy-going       │ │
                                         │   Algieba        Smooth           │ │
                                         │   Despina        Smooth           │ │
                                         │   Erinome        Clear            │ │
                                         │   Algenib        Gravelly         │ │
                                         │   Rasalgethi     Informative      │ │
                                         │   Laomedeia      Upbeat           │ │
                                         │   Achernar       Soft             │ │
                                         │   Alnilam        Firm             │ │
                                         │   Schedar        Even             │ │
                                         │   Gacrux         Mature           │ │
                                         │   Pulcherrima    Forward          │ │
                                         │   Achird         Friendly         │ │
                                         │   Zubenelgenubi  Casual           │ │
                                         │   Vindemiatrix   Gentle           │ │
                                         │   Sadachbia      Lively           │ │
                                         │   Sadaltager     Knowledgeable    │ │
                                         │   Sulafat        Warm             │ │
                                         └──────── Enter choose · Esc close ─┘ │
                                                                               │
 mic [||||||||||||||||||||||||||||||||||||||||||||||||||||||||||      |       ] -12 dB      ● talking
 spk [||||||||||||||||||||||||||||||||||||           |                        ] -30 dB CLIP echo: headphones
 ↑↓ move  type filter  Enter choose  Esc close
"""#,
        "voiceMenu_80x24": #"""
 parley  ● live  voice Puck  gemini-live-2.5-flash                        DEMO
 session 2:05  goAway┌─ Voice (30) ──────────────────────┐ms      PTT: tap/hold
you     What's the we│ filter: type to filter            │
gemini  It's sunny in│   Zephyr         Bright           │ht breeze from the
        bay.         │ ● Puck           Upbeat           │
      · voice changed│   Charon         Informative      │
you     東京の天気は │   Kore           Firm             │
gemini  Sure — here i│   Fenrir         Excitable        │
                     │   Leda           Youthful         │
                     │   Orus           Firm             │
                     │   Aoede          Breezy           │
                     │   Callirrhoe     Easy-going       │
                     │   Autonoe        Bright           │
                     │   Enceladus      Breathy          │
                     │   Iapetus        Clear            │
                     │   Umbriel        Easy-going       │
                     │   Algieba        Smooth           │
─ tool calls (3) ────│   Despina        Smooth           │──────────────────────
 get_weather (wx) {"c│   Erinome        Clear            │       ok       420 ms
 run_shell {"cmd":"ls│   Algenib        Gravelly         │       denied
 search {"q":"tokyo e│   Rasalgethi     Informative      │       running   1.5 s
 mic [|||||||||||||||└────────────────────── 1-18 of 30 ─┘  ● talking
 spk [||||||||||||||||||||      |             ] -30 dB CLIP echo: headphones
 ↑↓ move  type filter  Enter choose  Esc close
"""#,
    ]
}
