print("tui demo")
