import { buildOpenApiDocument } from './src/api/openapi/document.js';
import { paymentOpenApiPaths } from './src/payments/openapi.js';
console.log(JSON.stringify(buildOpenApiDocument('http://localhost:3000', paymentOpenApiPaths), null, 2));
