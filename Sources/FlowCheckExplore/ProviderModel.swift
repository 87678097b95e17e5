import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// A model of one provider's actions, from which `flowcheck explore` draws random flows.
///
/// A model works on abstract actions, not spec text: it generates a plan from a seeded
/// generator, and renders a plan into an ordinary spec, predicting as it goes only what it can
/// be sure of from the seeds and the committed specs. Shrinking removes and simplifies actions
/// and renders again, so the predictions always follow from the steps that remain.
public protocol ProviderModel: Sendable {
    /// One thing the app, the user or the world does.
    associatedtype Action: Sendable, Equatable

    /// The provider the flows are for.
    var provider: Provider { get }
    /// The id prefix of its flows, e.g. `MLT` in `EXP-MLT-1-17`.
    var idPrefix: String { get }

    /// A random plan of at most `maxSteps` actions, steered toward the actions and
    /// perturbations named in `unreached` (by ``reachName(of:)``): those no earlier flow of the
    /// run has reached get more weight.
    func generate(using random: inout SplitMix64, maxSteps: Int, toward unreached: Set<String>) -> ModelPlan<Action>

    /// The plan as a spec with the model's predictions as ordinary `expect` checks. An action
    /// whose outcome the model cannot predict where it now stands (after shrinking removed what
    /// it depended on) is left out, so the spec never expects what the seeds leave open.
    func render(_ plan: ModelPlan<Action>, id: String) -> RenderedFlow

    /// Simpler forms of an action for shrinking (a clock jump onto a boundary, a fault without
    /// a path): tried in order, each kept only if the flow still fails the same way.
    func simplifications(of action: Action) -> [Action]

    /// What the reach table counts an action as: its kind and, for a perturbation, which one
    /// (`fault.serverError@/v1/products`, `tamper.code.state.case`, `advance.expiry-60`).
    func reachName(of action: Action) -> String

    /// Every name ``reachName(of:)`` gives, in table order: the table shows each, the ones no
    /// generated flow reached included.
    var reachNames: [String] { get }

    /// The model states `plan` passes through, its start included, by name (a state names
    /// each of its facets: `token.expired`, `credentials.none`): the reach table counts them.
    func stateNames(of plan: ModelPlan<Action>) -> Set<String>

    /// Every name ``stateNames(of:)`` gives, in table order.
    var stateNames: [String] { get }
}

extension ProviderModel {
    /// `choices` with the weight of each action not reached yet raised, so a run goes where
    /// its earlier flows have not been.
    func steered(_ choices: [(Action, Int)], toward unreached: Set<String>) -> [(Action, Int)] {
        guard !unreached.isEmpty else { return choices }
        return choices.map { unreached.contains(reachName(of: $0.0)) ? ($0.0, $0.1 * 4 + 2) : $0 }
    }

    /// One of `options`: uniformly among those not reached yet when there are any, else among
    /// all of them.
    func pick(_ options: [Action], toward unreached: Set<String>, _ random: inout SplitMix64) -> Action {
        let fresh = options.filter { unreached.contains(reachName(of: $0)) }
        return random.pick(fresh.isEmpty ? options : fresh)
    }

    /// `1 + random.below(maxSteps)` actions drawn with `choose` (told whether it draws the
    /// first), each tried with `apply` on a copy of the state: one with no place where the flow
    /// stands (nil) is left out and changes nothing. `triesPerAction`: after that many draws per
    /// wanted action the plan ends shorter; nil: no bound.
    func draw<State, Written>(from start: State, using random: inout SplitMix64, maxSteps: Int, triesPerAction: Int? = 20,
                              choose: (State, inout SplitMix64, Bool) -> Action, apply: (Action, inout State) -> Written?) -> [Action] {
        var state = start
        var actions: [Action] = []
        let length = 1 + random.below(max(1, maxSteps))
        var attempts = 0
        while actions.count < length {
            if let tries = triesPerAction, attempts >= length * tries { break }
            attempts += 1
            let action = choose(state, &random, actions.isEmpty)
            var next = state
            if apply(action, &next) != nil {
                state = next
                actions.append(action)
            }
        }
        return actions
    }

    /// The names of the states `actions` pass through from `state`, as ``written(_:from:apply:)``
    /// applies them (an action with no place where the flow stands leaves the state as it was).
    func visited<State, Written>(_ actions: [Action], from state: State, apply: (Action, inout State) -> Written?, name: (State) -> [String]) -> Set<String> {
        var state = state
        var names = Set(name(state))
        for action in actions {
            var next = state
            guard apply(action, &next) != nil else { continue }
            state = next
            names.formUnion(name(state))
        }
        return names
    }

    /// The steps `actions` write from `state`, each applied on a copy: an action that no
    /// longer applies (shrinking removed what it needed) is left out and leaves the state as
    /// it was.
    func written<State>(_ actions: [Action], from state: inout State, apply: (Action, inout State) -> [SpecJSON]?) -> [SpecJSON] {
        actions.flatMap { action -> [SpecJSON] in
            var next = state
            guard let steps = apply(action, &next) else { return [] }
            state = next
            return steps
        }
    }
}

/// A flow as a model plans it: which fixture variant, then the actions in order.
public struct ModelPlan<Action: Sendable & Equatable>: Sendable, Equatable {
    /// The model's fixture choice (for example a token lifetime); 0 is the plainest.
    public var variant: Int
    public var actions: [Action]

    /// A plan of `actions` on fixture `variant`.
    public init(variant: Int, actions: [Action]) {
        self.variant = variant
        self.actions = actions
    }
}

/// A rendered plan: the spec and how many steps it has.
public struct RenderedFlow: Sendable {
    public var spec: SpecJSON
    public var stepCount: Int

    /// A rendered spec of `stepCount` steps.
    public init(spec: SpecJSON, stepCount: Int) {
        self.spec = spec
        self.stepCount = stepCount
    }
}

/// Every provider model `flowcheck explore` knows, in the order flows are dealt to them.
public enum ExploreModels {
    /// The registered models, erased so a list can hold them.
    public static let all: [AnyProviderModel] = [
        AnyProviderModel(MoltinModel()),
        AnyProviderModel(CloverModel()),
        AnyProviderModel(CleverModel()),
        AnyProviderModel(BraintreeModel()),
    ]

    /// The model for `provider`, if there is one.
    public static func model(for provider: String) -> AnyProviderModel? {
        all.first { $0.provider.rawValue == provider }
    }
}

/// A provider model with its action type hidden: plans travel as opaque boxes.
public struct AnyProviderModel: Sendable {
    /// The provider the flows are for.
    public let provider: Provider
    /// The id prefix of its flows.
    public let idPrefix: String
    let generateBox: @Sendable (inout SplitMix64, Int, Set<String>) -> OpaquePlan
    let renderBox: @Sendable (OpaquePlan, String) -> RenderedFlow
    let shrinkSteps: @Sendable (OpaquePlan) -> [OpaquePlan]
    let reachBox: @Sendable (OpaquePlan) -> Set<String>
    let statesBox: @Sendable (OpaquePlan) -> Set<String>
    /// Every action and perturbation the model has, as the reach table names them.
    public let reachNames: [String]
    /// Every model state the reach table names.
    public let stateNames: [String]

    /// Erases `model`.
    public init<Model: ProviderModel>(_ model: Model) {
        provider = model.provider
        idPrefix = model.idPrefix
        generateBox = { random, steps, unreached in OpaquePlan(model.generate(using: &random, maxSteps: steps, toward: unreached)) }
        renderBox = { plan, id in model.render(plan.unwrap(Model.Action.self), id: id) }
        reachBox = { plan in Set(plan.unwrap(Model.Action.self).actions.map(model.reachName)) }
        reachNames = model.reachNames
        statesBox = { plan in model.stateNames(of: plan.unwrap(Model.Action.self)) }
        stateNames = model.stateNames
        shrinkSteps = { plan in
            let plan = plan.unwrap(Model.Action.self)
            return Shrinker.candidates(of: plan, simplify: model.simplifications).map(OpaquePlan.init)
        }
    }
}

/// A plan whose action type only its model knows.
struct OpaquePlan: Sendable {
    // Only ever a ModelPlan<Action>; erased so models can share one list.
    let value: any Sendable
    let length: Int

    init<Action>(_ plan: ModelPlan<Action>) {
        value = plan
        length = plan.actions.count
    }

    func unwrap<Action>(_ type: Action.Type) -> ModelPlan<Action> {
        value as! ModelPlan<Action>
    }
}
