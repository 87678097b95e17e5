/// FlowCheck's own version, as the JSON report states it. Raise it with every release.
public enum ToolVersion {
    public static let current = "0.13.0"
}
