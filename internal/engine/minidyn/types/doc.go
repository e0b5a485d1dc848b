/*
Package types describes the types used in the project
*/
package types
