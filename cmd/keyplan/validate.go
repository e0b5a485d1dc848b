package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/dynalite"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// newClient is a DynamoDB client for an endpoint: credentials from the
// environment when set (for real DynamoDB), placeholders otherwise (local
// engines accept any).
func newClient(endpoint string) *dynamodb.Client {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" {
		id, secret = "keyplan", "keyplan"
	}
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN")),
	})
}

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	endpoint := fs.String("endpoint", os.Getenv(dynalite.EnvEndpoint), "DynamoDB endpoint URL (default: $"+dynalite.EnvEndpoint+", else an embedded dynalite)")
	keep := fs.Bool("keep", false, "keep the table instead of deleting it")
	file, ok := parse(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	d, code := design(file, stderr)
	if d == nil {
		return code
	}
	if errs := d.Errors(); len(errs) > 0 {
		for _, x := range errs {
			fmt.Fprintln(stderr, x)
		}
		fmt.Fprintf(stderr, "keyplan validate: the design has %d error(s); fix them first (keyplan check %s)\n", len(errs), file)
		return exitFindings
	}
	m := d.Model()
	if m.Examples == nil || len(m.Examples.Expect) == 0 {
		fmt.Fprintf(stderr, "keyplan validate: %s has no examples.expect: nothing to prove\n", file)
		return exitUsage
	}
	if *endpoint == "" {
		wd, _ := os.Getwd()
		srv, err := dynalite.Start(wd)
		if err != nil {
			fmt.Fprintf(stderr, "keyplan validate: the embedded engine did not start: %v\n", err)
			if errors.Is(err, dynalite.ErrNotInstalled) {
				fmt.Fprintf(stderr, "  %s\n", dynalite.Install)
			}
			return exitUsage
		}
		defer srv.Stop()
		*endpoint = srv.Endpoint
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client := newClient(*endpoint)
	name := fmt.Sprintf("keyplan-validate-%s-%d", d.Table, time.Now().UnixNano())
	if err := dynamo.CreateTable(ctx, client, d, name); err != nil {
		fmt.Fprintf(stderr, "keyplan validate: %s: %v\n", *endpoint, err)
		return exitUsage
	}
	if !*keep {
		defer client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}
	var c dynamo.Client = client
	if !dynalite.SupportsTransactions(ctx, client) {
		fmt.Fprintln(stdout, "note: the engine has no TransactWriteItems; keyplan emulates it with conditional writes (all-or-nothing, not isolated)")
		c = dynalite.EmulateTransactions(client)
	}
	rep := dynamo.Validate(ctx, dynamo.New(d, c, name))
	for _, err := range rep.LoadErrors {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
	}
	failed := len(rep.LoadErrors)
	for _, r := range rep.Results {
		line := r.String()
		if !r.OK() {
			failed++
			line = r.Pos.In(file) + ": " + line
		}
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "%s: %d item(s) loaded, %d expectation(s), %d failed (%s)\n", file, rep.Loaded, len(rep.Results), failed, strings.TrimPrefix(*endpoint, "http://"))
	if !rep.OK() {
		return exitFindings
	}
	return exitClean
}
