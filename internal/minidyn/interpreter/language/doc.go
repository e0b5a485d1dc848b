/*
Package language provides the required logic to evalute expressions
*/
package language
