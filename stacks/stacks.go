package stacks

import (
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/constructs/tablerules"
)

// Config locates the example models.
type Config struct {
	// Models is the directory of the example model files.
	Models string
	// Region is the primary region of the stacks.
	Region string
	// ReplicaRegion is the leaderboard's second region.
	ReplicaRegion string
}

// DefaultConfig is what the CDK app uses, run from the repository root.
func DefaultConfig() Config {
	return Config{Models: "examples", Region: "us-east-1", ReplicaRegion: "eu-west-1"}
}

// Stacks are the example app's stacks.
type Stacks struct {
	Leaderboard, Shop awscdk.Stack
	// LeaderboardTable and ShopTable are the tables.
	LeaderboardTable, ShopTable *singletable.Table
	// LeaderboardReader may read players and the season ranking only.
	LeaderboardReader awsiam.Role
	// ShopReader may read the catalog and customers' orders only.
	ShopReader awsiam.Role
	// ShopOrders (the order service) may read an order, place one and
	// ship it: the write patterns' item actions on the table alone.
	ShopOrders awsiam.Role
}

// New adds the example stacks to app, with cdk-nag's AwsSolutions and
// Serverless packs and the GlobalTable rule pack over everything.
func New(app awscdk.App, cfg Config) *Stacks {
	s := &Stacks{}
	env := &awscdk.Environment{Region: jsii.String(cfg.Region)}

	s.Leaderboard = awscdk.NewStack(app, jsii.String("KeyplanLeaderboard"), &awscdk.StackProps{
		Env:         env,
		Description: jsii.String("keyplan example: seed 000's game leaderboard as a global table with autoscaled provisioned capacity"),
	})
	s.LeaderboardTable = singletable.New(s.Leaderboard, "Leaderboard", &singletable.Props{
		ModelFile: filepath.Join(cfg.Models, "leaderboard.yaml"),
		Billing: &singletable.Billing{
			Mode:  singletable.Provisioned,
			Read:  singletable.Scaling{Min: 5, Max: 500},
			Write: singletable.Scaling{Min: 5, Max: 200},
		},
		// The second region serves a few reads (failover, reporting):
		// it provisions its own, not the primary's.
		Replicas: []singletable.Replica{{Region: cfg.ReplicaRegion, Read: &singletable.Scaling{Min: 2, Max: 100}}},
		Tags:     map[string]string{"app": "leaderboard"},
		Acknowledge: map[string]string{
			"KP401:SeasonLeaderboard": "a season has thousands of players but eight seasons exist at once; reads are cached by the game servers and writes are rating updates at 30/s, well under one partition's 1,000 WCU",
		},
	})
	s.LeaderboardReader = reader(s.Leaderboard, "LeaderboardReader")
	s.LeaderboardTable.GrantPatterns(s.LeaderboardReader, "GetPlayer", "SeasonLeaderboard")

	s.Shop = awscdk.NewStack(app, jsii.String("KeyplanShop"), &awscdk.StackProps{
		Env:         env,
		Description: jsii.String("keyplan example: seeds 001/004's shop as an on-demand single table"),
	})
	s.ShopTable = singletable.New(s.Shop, "Shop", &singletable.Props{
		ModelFile: filepath.Join(cfg.Models, "ecommerce.yaml"),
		Tags:      map[string]string{"app": "shop"},
		Acknowledge: map[string]string{
			"KP401:OrdersByStatus": "the status dashboard reads 5/s; order writes (20/s) spread over five statuses stay far below one partition's limits",
		},
	})
	s.ShopReader = reader(s.Shop, "ShopReader")
	s.ShopTable.GrantPatterns(s.ShopReader, "GetProduct", "ProductsByCategory", "CustomerOrders")
	s.ShopOrders = reader(s.Shop, "ShopOrders")
	s.ShopTable.GrantPatterns(s.ShopOrders, "GetOrder", "PlaceOrder", "ShipOrder")

	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(tablerules.NewAspect(), nil)
	return s
}

// reader is a role application code assumes to use the table.
func reader(scope constructs.Construct, id string) awsiam.Role {
	return awsiam.NewRole(scope, jsii.String(id), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("uses the table through keyplan's GrantPatterns: the patterns' actions on the indexes they use"),
	})
}
