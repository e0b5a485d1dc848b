// Package singletable is the CDK construct for a keyplan design: one
// DynamoDB global table (CDK TableV2, AWS::DynamoDB::GlobalTable) with the
// planner's keys, overloaded GSIs and projections, TTL, streams, replicas,
// billing and protection, and grants computed from the patterns.
//
// # Using the package
//
//	app := awscdk.NewApp(nil)
//	stack := awscdk.NewStack(app, jsii.String("Game"), nil)
//	table := singletable.New(stack, "Leaderboard", &singletable.Props{ModelFile: "leaderboard.yaml"})
//	table.GrantPatterns(fn, "GetPlayer", "SeasonLeaderboard") // GetItem/Query on exactly those indexes
//	fn.AddEnvironment(jsii.String(singletable.TableNameEnv), table.Table.TableName(), nil)
//	app.Synth(nil)
//
// The design's check errors (and any props problem) fail synthesis with the
// rule id and the model's file:line; warnings become CDK warnings, so
// `cdk synth --strict` fails on them unless acknowledged with a reason
// (Props.Acknowledge).
//
// Defaults lean safe: point-in-time recovery on the table and every
// replica, deletion protection, RemovalPolicy RETAIN, on-demand billing,
// an AWS owned key, and a name CloudFormation chooses.
package singletable
