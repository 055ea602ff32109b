// Package avro is a stub of github.com/ONSdigital/dp-kafka/v4@v4.3.0 for analyzer tests: signatures mirror the real API.
package avro

type Schema struct {
	Definition string
}

func (schema *Schema) Unmarshal(message []byte, s interface{}) error { return nil }
