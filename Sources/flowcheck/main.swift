import FlowCheckCLI

// The executable is the library's entry point with our SDK core as the driver; another team's
// executable is the same line with its own driver (see FlowCheckMain). It ends the process
// itself, never through the main thread, so nothing a driver blocks keeps it alive.
await FlowCheckMain.runAndExit()
