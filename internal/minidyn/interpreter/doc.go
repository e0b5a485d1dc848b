/*
Package interpreter processes the queries and evaluates them
*/
package interpreter
