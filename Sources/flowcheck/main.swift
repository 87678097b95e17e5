import FlowCheckCLI
import Foundation

// The executable is the library's entry point with our SDK core as the driver; another team's
// executable is the same line with its own driver (see FlowCheckMain).
exit(await FlowCheckMain.run())
