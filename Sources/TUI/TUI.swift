// TUI module.
