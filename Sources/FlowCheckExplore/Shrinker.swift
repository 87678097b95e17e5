/// The candidates a failing plan is shrunk through, smallest change last: whole chunks of
/// actions removed (halves, then quarters, down to single actions, as delta debugging does),
/// then each action replaced by a simpler form, then the plainest fixture.
enum Shrinker {
    static func candidates<Action>(of plan: ModelPlan<Action>, simplify: (Action) -> [Action]) -> [ModelPlan<Action>] {
        var out: [ModelPlan<Action>] = []
        let count = plan.actions.count
        var chunk = count / 2
        while chunk >= 1 {
            var start = 0
            while start < count {
                var actions = plan.actions
                actions.removeSubrange(start..<min(count, start + chunk))
                out.append(ModelPlan(variant: plan.variant, actions: actions))
                start += chunk
            }
            chunk /= 2
        }
        for index in plan.actions.indices {
            for simpler in simplify(plan.actions[index]) where simpler != plan.actions[index] {
                var actions = plan.actions
                actions[index] = simpler
                out.append(ModelPlan(variant: plan.variant, actions: actions))
            }
        }
        if plan.variant != 0 { out.append(ModelPlan(variant: 0, actions: plan.actions)) }
        return out
    }
}
